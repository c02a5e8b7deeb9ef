import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { test } from 'node:test';
import { fetch as undiciFetch } from 'undici';
import type { Resolver } from '../../platform/net/index.js';
import { ADYEN_OFFICIAL_HOST } from './adyen/client.js';
import { baseUrlTrust } from './provider-base-url.js';
import { STRIPE_OFFICIAL_HOST } from './stripe/client.js';
import { ProviderUnreachableError, UNREACHABLE_MESSAGE, providerFetch, withoutHostText } from './provider-fetch.js';

// The fetch provider SDKs send with, for each kind of api_base_url.

/** A TCP listener on loopback that counts the connections it gets (none may arrive). */
async function counting(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server: Server = createServer((socket) => { count += 1; socket.destroy(); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What a name that was public when saved answers at connect time (DNS rebinding). */
const rebindTo = (address: string): Resolver => (_host, _options, callback) => callback(null, [{ address, family: 4 }]);
const failing: Resolver = (host, _options, callback) => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);

test('a merchant-chosen name resolving to loopback at connect time is refused with no connection made', async () => {
  const inside = await counting();
  try {
    for (const address of ['127.0.0.1', '10.0.0.1', '169.254.169.254']) {
      const base = `https://rebind.example.com:${inside.port}`;
      const send = providerFetch(base, { officialHost: STRIPE_OFFICIAL_HOST, allowlist: [], resolve: rebindTo(address) });
      await assert.rejects(send(`${base}/v1/balance`), (err: Error) => err instanceof ProviderUnreachableError, address);
    }
    assert.equal(inside.connections(), 0);
  } finally {
    await inside.close();
  }
});

test('refused by policy, unresolvable, or an address stored before the policy: one same error', async () => {
  const inside = await counting();
  try {
    const messages: string[] = [];
    const cases: Array<[string, Resolver | undefined]> = [
      [`http://127.0.0.1:${inside.port}/any/path?`, undefined],
      ['https://nowhere.example.com', failing],
      [`https://rebind.example.com:${inside.port}`, rebindTo('127.0.0.1')],
    ];
    for (const [base, resolve] of cases) {
      const send = providerFetch(base, { officialHost: ADYEN_OFFICIAL_HOST, allowlist: [], resolve });
      await send(`${base}/checkout/v71/paymentMethods`, { method: 'POST' }).then(
        () => assert.fail(`${base} answered`), (err: Error) => messages.push(err.message),
      );
    }
    assert.deepEqual(new Set(messages), new Set([UNREACHABLE_MESSAGE]));
    assert.equal(inside.connections(), 0);
  } finally {
    await inside.close();
  }
});

test('the operator\'s log says why (the policy\'s words, the resolver\'s code), naming the host and nothing else of the URL', async () => {
  const inside = await counting();
  const logged: Array<{ host: string; reason: string }> = [];
  const logger = { warn: (fields: object) => void logged.push(fields as { host: string; reason: string }) };
  try {
    const cases: Array<[string, string[], Resolver | undefined]> = [
      [`http://user:pw@127.0.0.1:${inside.port}/?key=secret`, [], undefined],
      [`https://rebind.example.com:${inside.port}`, [], rebindTo('10.0.0.1')],
      ['https://nowhere.example.com', [], failing],
    ];
    for (const [base, allowlist, resolve] of cases) {
      const send = providerFetch(base, { officialHost: ADYEN_OFFICIAL_HOST, allowlist, resolve, logger });
      await assert.rejects(send(`${base}/v71/paymentMethods`, { method: 'POST' }), (err: Error) => err instanceof ProviderUnreachableError);
    }
    assert.equal(logged.length, 3);
    assert.equal(logged[0].host, `127.0.0.1:${inside.port}`);
    assert.match(logged[0].reason, /^api_base_url is refused: /);
    assert.equal(logged[1].host, `rebind.example.com:${inside.port}`);
    assert.match(logged[1].reason, /10\.0\.0\.1|private|not allowed/i);
    assert.deepEqual(logged[2], { host: 'nowhere.example.com', reason: 'ENOTFOUND' });
    assert.ok(!JSON.stringify(logged).includes('secret') && !JSON.stringify(logged).includes('pw'), 'no user-info or query');
    assert.equal(inside.connections(), 0);
  } finally {
    await inside.close();
  }
});

test('what a merchant-chosen host answers reaches the SDK without its text', async () => {
  const answers: Record<string, [number, string]> = {
    '/error': [404, 'INTERNAL-SECRET: admin console'],
    '/html': [200, '<html>INTERNAL-SECRET</html>'],
    '/json': [200, '{"object":"balance"}'],
    '/redirect': [302, 'INTERNAL-SECRET'],
  };
  const server = createHttpServer((req, res) => {
    const [status, body] = answers[req.url!];
    res.writeHead(status, { location: 'http://127.0.0.1:1/', 'content-type': 'text/plain' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const read = async (path: string) => {
      const res = await withoutHostText(await undiciFetch(`${base}${path}`, { redirect: 'manual' }));
      return [res.status, await res.text()] as const;
    };
    const [status, body] = await read('/error');
    assert.equal(status, 404);
    assert.equal(JSON.parse(body).error.message, "the provider at the account's api_base_url answered HTTP 404");
    assert.doesNotMatch((await read('/html'))[1], /INTERNAL/);
    assert.equal((await read('/html'))[0], 502);
    assert.deepEqual(await read('/json'), [200, '{"object":"balance"}']);
    assert.deepEqual([(await read('/redirect'))[0], /INTERNAL/.test((await read('/redirect'))[1])], [302, false]);
  } finally {
    server.close();
  }
});

test('the provider\'s own host and operator-listed origins are vetted; any other base URL is the merchant\'s', () => {
  const listed = ['https://proxy.example.net', 'http://127.0.0.1:*'];
  assert.equal(baseUrlTrust(STRIPE_OFFICIAL_HOST, undefined, []), 'official');
  assert.equal(baseUrlTrust(STRIPE_OFFICIAL_HOST, 'https://api.stripe.com', []), 'official');
  assert.equal(baseUrlTrust(ADYEN_OFFICIAL_HOST, 'https://1797a841fbb37ca7-shopeu-checkout-live.adyenpayments.com', []), 'official');
  assert.equal(baseUrlTrust(ADYEN_OFFICIAL_HOST, 'https://api.stripe.com', []), 'merchant');
  assert.equal(baseUrlTrust(STRIPE_OFFICIAL_HOST, 'https://api.stripe.com.evil.example', []), 'merchant');
  assert.equal(baseUrlTrust(STRIPE_OFFICIAL_HOST, 'https://api.stripe.com:8443', []), 'merchant');
  assert.equal(baseUrlTrust(STRIPE_OFFICIAL_HOST, 'https://proxy.example.net/v1', listed), 'operator');
  assert.equal(baseUrlTrust(STRIPE_OFFICIAL_HOST, 'http://127.0.0.1:4010', listed), 'operator');
  assert.equal(baseUrlTrust(STRIPE_OFFICIAL_HOST, 'http://127.0.0.2:4010', listed), 'merchant');
  assert.equal(baseUrlTrust(STRIPE_OFFICIAL_HOST, 'http://proxy.example.net', listed), 'merchant');
});
