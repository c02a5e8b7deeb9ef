// A webhook endpoint's host name is checked where it counts: on every address it resolves to, each
// time the dispatcher's pooled client (undici, createGuardedAgent) opens a connection. A name that
// resolves inside, or that rebinds there after passing once, reaches nothing, and a real receiver on
// loopback shows no request arrived. The resolver stands in for DNS; the connections are real.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Resolver } from '../services/platform/net/index.js';
import { createSender } from '../services/webhooks/sender.js';
import { startReceiver, type Receiver } from './webhooks-support.js';

let receiver: Receiver;
let port: string;
before(async () => {
  // The receiver closes each connection, so each attempt opens (and resolves) anew.
  receiver = await startReceiver({ status: 200, headers: { connection: 'close' } });
  port = new URL(receiver.url).port;
});
after(() => receiver.close());

const policy = { allowLoopbackInTest: true };
const request = (url: string, mode: 'test' | 'live' = 'test') => ({
  url, mode, body: '{}', headers: [['content-type', 'application/json']] as Array<[string, string]>,
});
const answering = (...addresses: string[]): Resolver => (_host, _options, callback) =>
  callback(null, addresses.map((address) => ({ address, family: 4 })));

test('a webhook host resolving to a private address is refused at connect time; nothing arrives', async () => {
  for (const [resolve, mode, why] of [
    [answering('10.0.0.7'), 'test', /10\.0\.0\.7 is a private address/],
    [answering('169.254.169.254'), 'test', /169\.254\.169\.254 is a metadata address/],
    // Loopback is a test-mode allowance for local receivers, never live's.
    [answering('127.0.0.1'), 'live', /127\.0\.0\.1 is a loopback address.*in live mode/],
    // Every resolved address is checked, not the first: a public one beside does not let it through.
    [answering('93.184.216.34', '10.1.2.3'), 'test', /10\.1\.2\.3 is a private address/],
  ] as const) {
    const sender = createSender({ timeoutMs: 5000, policy, resolve });
    try {
      const result = await sender.send(request(`http://hooks.example.test:${port}/hooks`, mode));
      assert.equal(result.status, undefined);
      assert.match(result.error!, /^address not allowed: /);
      assert.match(result.error!, why);
    } finally {
      await sender.close();
    }
  }
  assert.equal(receiver.received.length, 0);
});

test('a name that passed once and rebinds to a private address is refused at its next connection', async () => {
  let address = '127.0.0.1';
  const sender = createSender({ timeoutMs: 5000, policy, resolve: (_h, _o, callback) => callback(null, [{ address, family: 4 }]) });
  try {
    const url = `http://rebind.example.test:${port}/hooks`;
    const first = await sender.send(request(url));
    assert.equal(first.status, 200, first.error);
    assert.equal(receiver.received.length, 1);
    address = '192.168.1.20';
    const second = await sender.send(request(url));
    assert.equal(second.status, undefined);
    assert.match(second.error!, /address not allowed: 192\.168\.1\.20 is a private address/);
    assert.equal(receiver.received.length, 1);
  } finally {
    await sender.close();
  }
});
