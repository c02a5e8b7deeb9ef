// SSRF through a credential field, every connector and vault at once: whatever
// a credential field holds (stored before any check, so no save-time validation helps), no
// provider request reaches a loopback, private or link-local address. Each field of each
// provider's definition is given each attack in turn, in test and live mode, and the connector's
// `test` call (and a vault's forwarding) runs; a loopback listener counts connections, and a
// tripwire on the process's sockets records every attempt at a non-public address (a private or
// link-local one, which no listener here could receive). Every name the guarded path resolves
// answers 127.0.0.1 (DNS rebinding), so an official-looking host is refused too, and nothing here
// leaves the machine. An open and a closed port must answer alike.
import assert from 'node:assert/strict';
import { createServer, isIP, Socket, type AddressInfo, type Server } from 'node:net';
import { after, before, test } from 'node:test';
import { PROVIDERS } from '../services/connectors/providers.js';
import { loadProviders, type LoadedProvider } from '../services/connectors/provider-definition.js';
import { classifyAddress, type Resolver } from '../services/platform/net/index.js';
import { freePort } from './helpers/processes.js';

/** Plausible credentials of each provider, per mode, whose every field the attacks replace in turn. */
const BASE: Record<string, (mode: 'test' | 'live') => Record<string, string>> = {
  stripe: (mode) => ({ secret_key: `sk_${mode}_abc`, webhook_secret: 'whsec_abc' }),
  adyen: () => ({ api_key: 'AQE_abc', merchant_account: 'ShopECOM', hmac_key: '44782DEF547AAA06C910C43932B1EB0C', live_url_prefix: '1797a841fbb37ca7-ShopECOM' }),
  checkout: (mode) => ({ secret_key: mode === 'test' ? 'sk_sbox_abc' : 'sk_abc', processing_channel_id: 'pc_abc', webhook_signature_key: 'whk', subdomain: 'abc123' }),
  mollie: (mode) => ({ api_key: `${mode}_${'a'.repeat(30)}`, webhook_base_url: 'https://pay.example.com' }),
  paypal: (mode) => ({ client_id: 'AbC', client_secret: 'EfG', webhook_id: 'WH-1', environment: mode === 'live' ? 'live' : 'sandbox' }),
  stripe_vault: (mode) => ({ secret_key: `sk_${mode}_abc`, destinations: 'adyen' }),
  basis_theory: () => ({ api_key: 'key_abc', destinations: 'adyen' }),
};

/** Ways a credential could name an internal address, as a host part (a prefix) or as a whole URL. */
const attacks = (port: number) => [
  `127.0.0.1:${port}/x?`, `localhost:${port}/#`, `[::1]:${port}/x?`, `2130706433:${port}/x?`, `[::ffff:127.0.0.1]:${port}/x?`,
  `x@127.0.0.1:${port}/x?`, `rebind.example.com:${port}/x?`,
  `http://127.0.0.1:${port}/`, `https://127.0.0.1:${port}/x?`, `http://localhost:${port}`, `http://[::1]:${port}/`,
  `http://[::ffff:7f00:1]:${port}/`, `https://rebind.example.com:${port}/`,
  `10.0.0.1:${port}/x?`, `https://10.0.0.1/`, `192.168.1.1:${port}/#`, `https://192.168.1.1/`,
  `169.254.169.254/latest/meta-data?`, `http://169.254.169.254/latest/meta-data/`, `https://[fe80::1]/`, `[fd00:ec2::254]/x?`,
];

/** Every name resolves inside: only a connection made through the guarded lookup asks this resolver. */
const inward: Resolver = (_host, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);

/** A loopback port on 127.0.0.1 and ::1 that counts the connections it gets. */
async function listener(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const servers: Server[] = [];
  const listen = (host: string, port: number) => new Promise<number>((resolve, reject) => {
    const server = createServer((socket) => { count += 1; socket.destroy(); });
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
    servers.push(server);
  });
  const port = await listen('127.0.0.1', 0);
  await listen('::1', port);
  return {
    port, connections: () => count,
    close: async () => { await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))); },
  };
}

/**
 * Records every attempt of this process to connect to a non-public address (an IP literal, or a
 * name's resolved address) and stops it there, so a private address that answers nobody here is
 * still seen, and nothing waits on it.
 */
function tripwire(): { hits: string[]; remove: () => void } {
  const hits: string[] = [];
  const original = Socket.prototype.connect;
  const inside = (address: string) => classifyAddress(address) !== 'public';
  Socket.prototype.connect = function connect(this: Socket, ...args: unknown[]) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const options = (typeof first === 'object' && first !== null ? first : { port: first, host: args[1] }) as { host?: string; path?: string };
    const host = (options.host ?? '').replace(/^\[|\]$/g, '');
    const stop = (what: string) => { hits.push(what); this.destroy(new Error(`tripwire: ${what}`)); };
    if (options.path !== undefined) hits.push(`unix socket ${options.path}`);
    this.once('lookup', (err: Error | null, address: string) => { if (!err && inside(address)) stop(`${host} -> ${address}`); });
    this.on('connectionAttempt', (address: string) => { if (inside(address)) stop(`attempt ${address}`); });
    if (isIP(host) && inside(host)) {
      hits.push(host);
      process.nextTick(() => this.destroy(new Error(`tripwire: ${host}`)));
      return this;
    }
    return (original as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof Socket.prototype.connect;
  return { hits, remove: () => { Socket.prototype.connect = original; } };
}

/** The `test` call's answer, or 'no answer' when it did not come within a few seconds. */
async function checked(def: LoadedProvider, mode: 'test' | 'live', values: Record<string, string>): Promise<string> {
  const connector = def.create({ credentials: { get: async () => ({ mode, values }) }, network: { allowlist: [], resolve: inward } });
  const answer = connector.checkCredentials!({ providerCode: def.code, id: 'pac_attack' }).then(JSON.stringify, (err: Error) => `threw ${err.name}: ${err.message}`);
  return Promise.race([answer, new Promise<string>((resolve) => setTimeout(resolve, 4000, 'no answer'))]);
}

/** A vault's forwarding call through the vault connection's credentials. */
async function forwarded(def: LoadedProvider, mode: 'test' | 'live', values: Record<string, string>): Promise<string> {
  const forwarder = def.forwarder!({ credentials: { get: async () => ({ mode, values }) }, network: { allowlist: [], resolve: inward } });
  const route = { vault: def.capabilities.vault!, vaultAccountId: 'pac_vault', token: 'tok_abc', attemptId: 'att_abc' };
  const request = { url: 'https://checkout-test.adyen.com/v71/payments', headers: { 'content-type': 'application/json' }, body: '{}' };
  const answer = forwarder.forward(route, request, AbortSignal.timeout(4000)).then(JSON.stringify, (err: Error) => `threw ${err.name}: ${err.message}`);
  return Promise.race([answer, new Promise<string>((resolve) => setTimeout(resolve, 4500, 'no answer'))]);
}

let inside: Awaited<ReturnType<typeof listener>>;
let closed: number;

before(async () => {
  inside = await listener();
  closed = await freePort();
});
after(async () => {
  await inside?.close();
});

test('no credential field of any connector or vault reaches a loopback, private or link-local address; open and closed ports answer alike', async () => {
  assert.deepEqual(Object.keys(BASE).sort(), PROVIDERS.map((p) => p.code).sort(), 'every shipped provider is tried');
  const wire = tripwire();
  const differ: string[] = [];
  try {
    for (const def of await loadProviders(PROVIDERS)) {
      for (const mode of ['test', 'live'] as const) {
        const base = BASE[def.code](mode);
        for (const field of def.credentialFields.map((f) => f.name)) {
          const open = attacks(inside.port);
          const shut = attacks(closed);
          for (let i = 0; i < open.length; i += 1) {
            const calls = [checked, ...(def.forwarder ? [forwarded] : [])];
            for (const call of calls) {
              const [a, b] = await Promise.all([call(def, mode, { ...base, [field]: open[i] }), call(def, mode, { ...base, [field]: shut[i] })]);
              const same = a.replaceAll(String(inside.port), 'PORT') === b.replaceAll(String(closed), 'PORT');
              if (!same) differ.push(`${def.code} ${mode} ${field}=${open[i]} (${call.name}): ${a} / ${b}`);
            }
          }
        }
      }
    }
  } finally {
    wire.remove();
  }
  assert.deepEqual(wire.hits, [], 'no connection to a non-public address was attempted');
  assert.equal(inside.connections(), 0, 'no connection reached the loopback listener');
  assert.deepEqual(differ, [], 'an open and a closed port answer alike');
});
