import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { test } from 'node:test';
import { fetch as undiciFetch } from 'undici';
import type { Resolver } from '../platform/net/index.js';
import { ADYEN_OFFICIAL_HOST } from './adyen/facts.js';
import { baseUrlTrust, requestVerdict } from './provider-base-url.js';
import { CHECKOUT_OFFICIAL_HOST } from './checkout/facts.js';
import { STRIPE_OFFICIAL_HOST } from './stripe/facts.js';
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

test('the URL actually requested is what is checked: at the account\'s api_base_url, else the provider\'s own host', () => {
  const problem = (url: string, base?: string, official = ADYEN_OFFICIAL_HOST, allowlist: string[] = []) => {
    const verdict = requestVerdict(url, base, official, allowlist);
    return 'problem' in verdict ? verdict.problem : undefined;
  };
  const trust = (url: string, base?: string, official = ADYEN_OFFICIAL_HOST, allowlist: string[] = []) => {
    const verdict = requestVerdict(url, base, official, allowlist);
    return 'trust' in verdict ? verdict.trust : verdict.problem;
  };
  // What Adyen's library builds from a live URL prefix stored as written.
  const built = (prefix: string) => `https://${prefix}-checkout-live.adyenpayments.com/checkout/v71/paymentMethods`;
  for (const prefix of ['127.0.0.1:8080/x?', 'localhost:8080/#', '[::1]:8080/x?', 'evil.example.com/x?', 'a@127.0.0.1:1/x?', '10.0.0.1/x?']) {
    assert.ok(problem(built(prefix)), prefix);
  }
  assert.equal(trust(built('1797a841fbb37ca7-ShopEU')), 'official');
  assert.equal(trust('https://abc123.api.sandbox.checkout.com/payments', undefined, CHECKOUT_OFFICIAL_HOST), 'official');
  assert.ok(problem('https://api.stripe.com:8443/v1/balance', undefined, STRIPE_OFFICIAL_HOST), 'another port');
  assert.ok(problem('http://api.stripe.com/v1/balance', undefined, STRIPE_OFFICIAL_HOST), 'plain http');
  // With an api_base_url: only its origin, itself allowed.
  assert.equal(trust('https://sandbox.example.com/v1/balance', 'https://sandbox.example.com'), 'merchant');
  assert.match(problem('https://other.example.com/v1/balance', 'https://sandbox.example.com') ?? '', /not the account's api_base_url/);
  assert.ok(problem('https://127.0.0.1/v1/balance', 'https://127.0.0.1'), 'a base URL stored before the policy');
  assert.equal(trust('http://127.0.0.1:4010/v1/balance', 'http://127.0.0.1:4010', STRIPE_OFFICIAL_HOST, ['http://127.0.0.1:*']), 'operator');
  assert.ok(problem('https://127.0.0.1:4010/v1/balance', 'http://127.0.0.1:4010', STRIPE_OFFICIAL_HOST, ['http://127.0.0.1:*']), 'another scheme');
});

test('the provider\'s own host is reached through the guarded agent too: a name resolving inside is refused', async () => {
  const inside = await counting();
  const asked: string[] = [];
  const inward: Resolver = (host, _options, callback) => { asked.push(host); callback(null, [{ address: '127.0.0.1', family: 4 }]); };
  try {
    const send = providerFetch(undefined, { officialHost: STRIPE_OFFICIAL_HOST, allowlist: [], resolve: inward });
    await assert.rejects(send('https://api.stripe.com/v1/balance'), (err: Error) => err instanceof ProviderUnreachableError);
    assert.deepEqual(asked, ['api.stripe.com'], 'the guarded lookup decided');
    // A host built from a stored prefix is refused before any name is resolved or connection made.
    const adyen = providerFetch(undefined, { officialHost: ADYEN_OFFICIAL_HOST, allowlist: [], resolve: inward });
    for (const prefix of [`127.0.0.1:${inside.port}/x?`, `localhost:${inside.port}/#`, `[::1]:${inside.port}/x?`, `inside.example.com:${inside.port}/x?`]) {
      await assert.rejects(adyen(`https://${prefix}-checkout-live.adyenpayments.com/checkout/v71/paymentMethods`, { method: 'POST', body: '{}' }),
        (err: Error) => err instanceof ProviderUnreachableError, prefix);
    }
    assert.deepEqual([asked.length, inside.connections()], [1, 0]);
  } finally {
    await inside.close();
  }
});

test('an operator-listed origin is sent to as it is, its answer a Response as the global fetch gives', async () => {
  const server = createHttpServer((req, res) => {
    res.writeHead(402, { 'content-type': 'application/json', 'x-seen': `${req.method} ${req.headers['x-key']}` }).end('{"error":{"message":"declined"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const send = providerFetch(base, { officialHost: STRIPE_OFFICIAL_HOST, allowlist: ['http://127.0.0.1:*'] });
    const res = await send(new Request(`${base}/v1/charges`, { method: 'POST', headers: { 'x-key': 'k' }, body: 'a=1' }));
    assert.ok(res instanceof Response);
    assert.deepEqual([res.status, res.headers.get('x-seen'), await res.json()], [402, 'POST k', { error: { message: 'declined' } }]);
  } finally {
    server.close();
  }
});

test('a vault is asked to call only where the account itself may be called', async () => {
  const asked: string[] = [];
  const via: typeof fetch = async (input) => { asked.push(String(input)); return new Response('{}'); };
  const send = providerFetch(undefined, { officialHost: ADYEN_OFFICIAL_HOST, allowlist: [] }, via);
  await assert.rejects(send('https://127.0.0.1:8080/x?-checkout-live.adyenpayments.com/checkout/v71/payments', { method: 'POST', body: '{}' }),
    (err: Error) => err instanceof ProviderUnreachableError);
  const official = 'https://1797a841fbb37ca7-ShopEU-checkout-live.adyenpayments.com/checkout/v71/payments';
  assert.equal((await send(official, { method: 'POST', body: '{}' })).status, 200);
  assert.deepEqual(asked, [official]);
});
