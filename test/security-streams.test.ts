// An event stream opened before its key was revoked kept delivering payment
// events (customer names and emails) for as long as it stayed open. Now a stream ends within
// seconds of its key's revocation or of its project's allow-list excluding it, on whichever
// gateway replica holds it, and at a maximum lifetime, each time with a last `stream_ended` event
// saying why; `svc listen` reconnects by itself after the lifetime and stops after a revocation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openStream, startListener, startReceiver } from './helpers/event-stream-clients.js';
import { eventually } from './helpers/eventually.js';
import { startGatewayProcesses, type GatewayProcess } from './helpers/gateways.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

type Stream = Awaited<ReturnType<typeof openStream>>;

/** A stream of the test, with whether its response has ended. */
async function open(baseUrl: string, key: string) {
  const stream = await openStream(baseUrl, key);
  assert.equal(stream.status, 200);
  let ended = false;
  stream.response.on('end', () => (ended = true)).on('close', () => (ended = true));
  await eventually('the stream to start', async () => (stream.text().includes(': connected') ? true : undefined));
  return { ...stream, ended: () => ended };
}

/** The stream's last message, which must be its `stream_ended` event. */
function endOf(stream: Stream): { reason: string; message: string } {
  const messages = stream.text().split('\n\n').filter((m) => m.trim() !== '');
  const last = messages.at(-1)!;
  assert.match(last, /^event: stream_ended\ndata: /, `the last message says why the stream ended: ${last}`);
  return JSON.parse(last.split('\ndata: ')[1]);
}

/** A paid test payment of a named customer: what a stream of the project carries. */
async function pay(baseUrl: string, key: string) {
  const res = await request(baseUrl, 'POST', '/v1/payments', {
    key,
    body: {
      amount: 1500, currency: 'EUR', payment_method: 'card', test_scenario: 'success',
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id as string;
}

/** A second key of the project, to make events after the first is revoked. */
async function secondKey(stack: TestStack, projectId: string): Promise<string> {
  const res = await stack.manage('POST', `/projects/${projectId}/keys`, { mode: 'test', name: 'second key' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.secret;
}

/** Waits until `stream` has ended, then makes sure an event made afterwards never reaches it. */
async function assertNothingAfterTheEnd(stream: Awaited<ReturnType<typeof open>>, baseUrl: string, key: string) {
  await eventually('the stream to end', async () => (stream.ended() ? true : undefined), 10_000);
  const before = stream.text();
  const later = await pay(baseUrl, key);
  // Long enough for a live stream to have carried it (polls every 250 ms).
  await new Promise((r) => setTimeout(r, 1_500));
  assert.equal(stream.text(), before, 'nothing arrives after the end');
  assert.ok(!stream.text().includes(later));
}

describe('event streams end with their grant', () => {
  let stack: TestStack;
  let replica: GatewayProcess;

  before(async () => {
    stack = await startTestStack();
    // The revocation and the allow-list change are made through another gateway process.
    [replica] = await startGatewayProcesses(stack, 1);
  });
  after(async () => {
    await replica?.process.stop();
    await stack?.close();
  });

  test('revoking the key on another replica ends its open stream within seconds with reason revoked; nothing arrives after', async () => {
    const key = await stack.newMerchantKey('test');
    const other = await secondKey(stack, key.projectId);
    const stream = await open(stack.baseUrl, key.secret);
    const paid = await pay(stack.baseUrl, key.secret);
    await eventually('the payment on the stream', async () => (stream.text().includes(paid) ? true : undefined));
    assert.match(stream.text(), /ada@example\.com/, 'the stream carries customer data: what must stop');

    const revoked = await request(replica.baseUrl, 'POST', `/manage/v1/keys/${key.keyId}/revoke`, { key: stack.operatorToken });
    assert.equal(revoked.status, 200);
    await assertNothingAfterTheEnd(stream, stack.baseUrl, other);
    const end = endOf(stream);
    assert.equal(end.reason, 'revoked');
    assert.match(end.message, /revoked/);

    const again = await openStream(stack.baseUrl, key.secret);
    await eventually('the refusal', async () => (again.text() ? true : undefined));
    assert.equal(again.status, 401);
    assert.equal(JSON.parse(again.text()).error.code, 'invalid_api_key');
  });

  test('an allow-list that stops admitting the stream\'s address ends it with reason ip_not_allowed', async () => {
    const key = await stack.newMerchantKey('test');
    const other = await secondKey(stack, key.projectId);
    const set = async (entries: string[]) => {
      const res = await request(replica.baseUrl, 'PUT', `/manage/v1/projects/${key.projectId}/allowlist`, {
        key: stack.operatorToken, body: { entries },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    await set(['127.0.0.1', '192.0.2.0/24']);
    const stream = await open(stack.baseUrl, key.secret);
    const paid = await pay(stack.baseUrl, key.secret);
    await eventually('the payment on the stream', async () => (stream.text().includes(paid) ? true : undefined));

    await set(['192.0.2.0/24']);
    await eventually('the stream to end', async () => (stream.ended() ? true : undefined), 10_000);
    const end = endOf(stream);
    assert.equal(end.reason, 'ip_not_allowed');
    assert.match(end.message, /allow-list/);
    // The events made from an allowed address (192.0.2.x is not this test's) cannot be made here:
    // the list is cleared for the later payment, which still must not reach the ended stream.
    await set([]);
    await assertNothingAfterTheEnd(stream, stack.baseUrl, other);
  });

  test('svc listen stops with a clear message (exit 1) when its key is revoked', async () => {
    const key = await stack.newMerchantKey('test');
    const receiver = await startReceiver();
    const clean = { ...process.env };
    for (const name of ['SVC_URL', 'SVC_OPERATOR_TOKEN', 'SVC_API_KEY', 'DATA_DIR']) delete clean[name];
    const listener = await startListener({ ...clean, SVC_URL: stack.baseUrl, SVC_API_KEY: key.secret }, ['--forward-to', receiver.url]);
    try {
      const revoked = await stack.manage('POST', `/keys/${key.keyId}/revoke`);
      assert.equal(revoked.status, 200);
      assert.equal(await listener.exited, 1);
      assert.match(listener.errors(), /revoked: The API key of this stream was revoked/);
      assert.doesNotMatch(listener.errors(), /reconnecting/);
    } finally {
      await receiver.close();
    }
  });
});

describe('event streams have a maximum lifetime', () => {
  let stack: TestStack;
  const LIFETIME_SECONDS = 2;

  before(async () => {
    stack = await startTestStack({ env: { EVENT_STREAM_MAX_LIFETIME_SECONDS: String(LIFETIME_SECONDS) } });
  });
  after(() => stack?.close());

  test('a stream ends at EVENT_STREAM_MAX_LIFETIME_SECONDS with reason max_lifetime, and svc listen reconnects by itself and keeps forwarding', async () => {
    const key = await stack.newMerchantKey('test');
    const receiver = await startReceiver();
    const clean = { ...process.env };
    for (const name of ['SVC_URL', 'SVC_OPERATOR_TOKEN', 'SVC_API_KEY', 'DATA_DIR']) delete clean[name];
    const listener = await startListener({ ...clean, SVC_URL: stack.baseUrl, SVC_API_KEY: key.secret }, ['--forward-to', receiver.url]);
    receiver.useSecret(listener.secret);
    try {
      // Opened after the listener's: when it has reached its lifetime, so has the listener's stream.
      const raw = await open(stack.baseUrl, key.secret);
      const first = await pay(stack.baseUrl, key.secret);
      await eventually('the raw stream to end', async () => (raw.ended() ? true : undefined), 15_000);
      const end = endOf(raw);
      assert.equal(end.reason, 'max_lifetime');
      assert.match(end.message, /Last-Event-ID/);
      assert.ok(raw.text().includes(first), 'the stream carried events until its end');

      // Twice the lifetime later the listener is on its third stream, and still forwards.
      await new Promise((r) => setTimeout(r, LIFETIME_SECONDS * 1000));
      const later = await pay(stack.baseUrl, key.secret);
      for (const id of [first, later]) {
        await eventually(`${id} at the receiver`, async () =>
          (receiver.events.some((e) => e.object.id === id && e.type === 'payment.successful') ? true : undefined), 15_000);
      }
      assert.ok(receiver.events.every((e) => e.verified));
      assert.equal(new Set(receiver.events.map((e) => e.id)).size, receiver.events.length, 'nothing forwarded twice');
      assert.doesNotMatch(listener.errors(), /Stream lost/, 'the lifetime is not reported as a lost stream');
      assert.doesNotMatch(listener.output(), /Reconnected/, 'the reconnection is transparent');
    } finally {
      assert.equal(await listener.stop(), 0);
      await receiver.close();
    }
  });
});
