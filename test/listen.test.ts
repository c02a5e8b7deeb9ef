// Whole-system test of `svc listen` and `svc trigger`: both as child processes (the real bin)
// against a running stack, forwarding to real HTTP receivers on loopback that verify every
// signature with an existing library, stripe-node's constructEvent.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { EVENT_TYPES } from '../services/contract/enums.js';
import { openStream, startListener, startReceiver, type Receiver } from './helpers/event-stream-clients.js';
import { eventually } from './helpers/eventually.js';
import { runSvc } from './helpers/svc-cli.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

/** A loopback TCP relay to the gateway whose connections the test can cut, as a flaky network would. */
async function startRelay(target: string) {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s)).on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    cut: () => sockets.forEach((s) => s.destroy()),
    close: () => {
      sockets.forEach((s) => s.destroy());
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Which object of a trigger's output an event type is about. */
/** Types svc trigger emits as the webhooks test API's sample events (cli/trigger.ts): told apart by event id. */
const SAMPLES = new Set(['settlement.created', 'payment.late_charge_returned']);

function subjectOf(type: string, objects: any[]): any {
  const kind = type.split('.')[0];
  if (SAMPLES.has(type)) return objects[0];
  // A payout trigger funds itself with a payment first; a refund trigger pays first too.
  return [...objects].reverse().find((o) => o.object === (kind === 'payment' ? 'payment' : kind));
}

describe('svc listen and svc trigger', () => {
  let stack: TestStack;
  let env: NodeJS.ProcessEnv;
  let testKey: string;
  let liveKey: string;

  before(async () => {
    // Payouts leave eight seconds after creation (svc trigger payout.cancelled cancels within that, even
    // on a loaded machine running every trigger at once) and the demo providers settle at once, so
    // payouts have funds to spend.
    stack = await startTestStack({
      env: { PAYOUT_HOLD_MS: '0', PAYOUT_TEST_HOLD_MS: '8000', PAYOUT_SWEEP_MS: '100', SETTLEMENT_CUTOFF_MS: '0', SETTLEMENT_SWEEP_MS: '200' },
    });
    testKey = (await stack.newMerchantKey('test')).secret;
    liveKey = (await stack.newMerchantKey('live')).secret;
    // Funds a demo provider has settled, for the payouts (svc trigger funds each one too; this
    // covers a deployment where test funds still wait for settlement).
    const funds = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: testKey, body: { amount: 100_000, currency: 'EUR', payment_method: 'card', test_scenario: 'success' },
    });
    assert.equal(funds.status, 201);
    await eventually('the first payment to settle', async () =>
      ((await request(stack.baseUrl, 'GET', '/v1/settlements', { key: testKey })).body.data.length > 0 ? true : undefined));
    const clean = { ...process.env };
    for (const name of ['SVC_URL', 'SVC_OPERATOR_TOKEN', 'SVC_API_KEY', 'DATA_DIR']) delete clean[name];
    env = { ...clean, SVC_URL: stack.baseUrl, SVC_API_KEY: testKey };
  });
  after(() => stack?.close());

  const trigger = async (type: string) => {
    const run = await runSvc(['trigger', type, '--json'], env);
    assert.equal(run.code, 0, `svc trigger ${type}: ${run.stderr}`);
    return JSON.parse(run.stdout) as { event_type: string; objects: any[] };
  };

  test('every event type svc trigger makes reaches two listeners at once, each signature verified by stripe-node', async () => {
    const [a, b, filtered] = [await startReceiver(), await startReceiver(), await startReceiver()];
    const listeners = await Promise.all([
      startListener(env, ['--forward-to', a.url]),
      startListener(env, ['--forward-to', b.url]),
      startListener(env, ['--forward-to', filtered.url, '--events', 'payment.successful,refund.*', '--json']),
    ]);
    [a, b, filtered].forEach((r, i) => r.useSecret(listeners[i].secret));
    assert.notEqual(listeners[0].secret, listeners[1].secret, 'each session mints its own secret');
    try {
      const runs = await Promise.all(EVENT_TYPES.map(trigger));
      const expected = runs.map((run) => ({ type: run.event_type, id: subjectOf(run.event_type, run.objects)[SAMPLES.has(run.event_type) ? 'event_id' : 'id'] }));
      const arrived = (r: Receiver, e: { type: string; id: string }) =>
        r.events.some((got) => got.type === e.type && (SAMPLES.has(e.type) ? got.id === e.id : got.object.id === e.id));
      for (const r of [a, b]) {
        await eventually('every triggered event at both receivers', async () => (expected.every((e) => arrived(r, e)) ? true : undefined), 30_000);
      }
      // Every event of one payment, its refund, and one payout, in full.
      const refunded = runs.find((r) => r.event_type === 'payment.refunded')!;
      const [payment, refund] = refunded.objects;
      const ofPayment = a.events.filter((e) => [payment.id, refund.id].includes(e.object.id)).map((e) => e.type).sort();
      assert.deepEqual(ofPayment, ['payment.created', 'payment.refunded', 'payment.successful', 'refund.successful']);
      const payout = runs.find((r) => r.event_type === 'payout.successful')!.objects[1];
      assert.deepEqual(a.events.filter((e) => e.object.id === payout.id).map((e) => e.type).sort(), ['payout.created', 'payout.successful']);

      for (const r of [a, b, filtered]) assert.ok(r.events.every((e) => e.verified), 'stripe-node verified every signature');
      const ids = (r: Receiver) => r.events.map((e) => e.id).sort();
      await eventually('both listeners to forward the same events', async () => (ids(a).join() === ids(b).join() ? true : undefined), 5_000);
      assert.equal(new Set(ids(a)).size, a.events.length, 'no event forwarded twice');

      // The filter: exactly the matching events, each of them.
      await eventually('the filtered listener to catch up', async () =>
        (filtered.events.length === a.events.filter((e) => /^(payment\.successful|refund\.)/.test(e.type)).length ? true : undefined), 5_000);
      assert.deepEqual([...new Set(filtered.events.map((e) => e.type))].sort(), ['payment.successful', 'refund.failed', 'refund.successful']);

      // One line per event: time, type, id, the local status, the duration.
      const line = new RegExp(`^\\S+Z\\s+refund\\.failed\\s+evt_\\w+\\s+→ 200\\s+\\d+ ms$`, 'm');
      assert.match(listeners[0].output(), line);
      // --json: one object per line, the session's secret first, then each forwarded event.
      const objects = listeners[2].output().trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(objects[0].kind, 'session');
      assert.equal(objects[0].secret, listeners[2].secret);
      const forwarded = objects.filter((o) => o.kind === 'event');
      assert.deepEqual(forwarded.map((o) => o.event_id).sort(), filtered.events.map((e) => e.id).sort());
      assert.ok(forwarded.every((o) => o.status === '200' && Number.isInteger(o.duration_ms)));
    } finally {
      for (const l of listeners) assert.equal(await l.stop(), 0, 'Ctrl-C ends svc listen cleanly');
      await Promise.all([a, b, filtered].map((r) => r.close()));
    }
  });

  test('a dropped stream is reopened with a message, and an event stored meanwhile still arrives', async () => {
    const relay = await startRelay(stack.baseUrl);
    const receiver = await startReceiver();
    const listener = await startListener({ ...env, SVC_URL: relay.url }, ['--forward-to', receiver.url]);
    receiver.useSecret(listener.secret);
    try {
      relay.cut();
      // Made while the listener waits to reconnect (its first retry is after 1 s).
      const [payment] = (await trigger('payment.successful')).objects;
      await eventually('the event stored while the stream was down', async () =>
        (receiver.events.some((e) => e.type === 'payment.successful' && e.object.id === payment.id) ? true : undefined), 15_000);
      assert.ok(receiver.events.every((e) => e.verified));
      assert.match(listener.errors(), /^Stream lost \(.+\); reconnecting in 1 s…$/m);
      assert.match(listener.output(), /^Reconnected\.$/m);
    } finally {
      assert.equal(await listener.stop(), 0);
      await Promise.all([receiver.close(), relay.close()]);
    }
  });

  test('a live key is refused: the stream answers 403, svc listen and svc trigger exit 1', async () => {
    const raw = await request(stack.baseUrl, 'GET', '/v1/test/events/stream', { key: liveKey });
    assert.equal(raw.status, 403);
    assert.equal(raw.body.error.code, 'forbidden');
    const listen = await runSvc(['listen', '--forward-to', 'http://127.0.0.1:9/hooks'], { ...env, SVC_API_KEY: liveKey });
    assert.equal(listen.code, 1);
    assert.match(listen.stderr, /forbidden: .*test keys only/);
    const trigger = await runSvc(['trigger', 'payment.successful'], { ...env, SVC_API_KEY: liveKey });
    assert.equal(trigger.code, 1);
    assert.match(trigger.stderr, /use a test key/);
  });

  test('an unknown event type is refused 422 on events, by the stream and by svc trigger as a usage mistake', async () => {
    const raw = await request(stack.baseUrl, 'GET', '/v1/test/events/stream?events=payment.sucessful', { key: testKey });
    assert.equal(raw.status, 422);
    assert.equal(raw.body.error.param, 'events');
    assert.equal((await runSvc(['trigger', 'payment.sucessful'], env)).code, 2);
  });

  test('a project holds at most 5 streams at once: the sixth is refused 429 with Retry-After, another project is not, and a closed one frees its place', async () => {
    const key = (await stack.newMerchantKey('test')).secret;
    const streams = [];
    for (let i = 0; i < 5; i++) {
      const s = await openStream(stack.baseUrl, key);
      assert.equal(s.status, 200);
      streams.push(s);
    }
    // Read as a stream, not a whole body: if it were admitted, it would never end.
    const refused = await openStream(stack.baseUrl, key);
    streams.push(refused);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '5');
    assert.ok(refused.headers['x-request-id']);
    await once(refused.response, 'end');
    const error = JSON.parse(refused.text()).error;
    assert.equal(error.code, 'rate_limited');
    assert.match(error.message, /5 event streams open/);
    const other = await openStream(stack.baseUrl, testKey);
    assert.equal(other.status, 200, 'another project has its own places');
    other.close();
    streams.shift()!.close();
    await eventually('the closed stream to free its place', async () => {
      const s = await openStream(stack.baseUrl, key);
      if (s.status !== 200) return undefined;
      streams.push(s);
      return true;
    });
    for (const s of streams) s.close();
  });

  test('the stream misses nothing a slow transaction stores after later ones, and resumes from Last-Event-ID', async () => {
    const key = await stack.newMerchantKey('test');
    const first = await openStream(stack.baseUrl, key.secret);
    assert.equal(first.status, 200);
    assert.match(String(first.headers['content-type']), /^text\/event-stream/);
    await eventually('the stream to start', async () => (first.text().includes(': connected') ? true : undefined));

    // Two transactions store an event each; the one that began first commits last.
    const db = new pg.Client({ connectionString: stack.db.url });
    const slow = new pg.Client({ connectionString: stack.db.url });
    await Promise.all([db.connect(), slow.connect()]);
    const insert = (client: pg.Client, id: string) => client.query(
      `INSERT INTO webhooks.events (id, type, merchant_id, project_id, mode, body, created_at, received_at)
       VALUES ($1, 'payment.created', $2, $3, 'test', $4, now(), now())`,
      [id, key.merchantId, key.projectId, JSON.stringify({ id, type: 'payment.created', data: { object: {} } })]);
    try {
      await slow.query('BEGIN');
      await insert(slow, 'evt_slow');
      await insert(db, 'evt_fast');
      await eventually('the later transaction\'s event', async () => (first.text().includes('evt_fast') ? true : undefined));
      await slow.query('COMMIT');
      await eventually('the slow transaction\'s event too', async () => (first.text().includes('evt_slow') ? true : undefined));
      first.close();

      // Away: an event stored now is sent when the client comes back with its last id.
      const lastId = [...first.text().matchAll(/^id: (\S+)$/gm)].at(-1)![1];
      await insert(db, 'evt_while_away');
      const again = await openStream(stack.baseUrl, key.secret, lastId);
      await eventually('the event stored while away', async () => (again.text().includes('evt_while_away') ? true : undefined));
      again.close();
      assert.ok(!/evt_fast|evt_slow/.test(again.text()), 'nothing already sent is sent again');
      const refused = await openStream(stack.baseUrl, key.secret, 'not-a-cursor');
      assert.equal(refused.status, 422);
      refused.close();
    } finally {
      await Promise.all([db.end(), slow.end()]);
    }
  });
});
