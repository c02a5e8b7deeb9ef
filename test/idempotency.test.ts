import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { build } from '../gateway/index.js';
import { createStore } from '../gateway/store/index.js';
import { loadConfig } from '../services/platform/config.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { startGatewayProcesses, type GatewayProcess } from './helpers/gateways.js';
import { gatewayClients } from './helpers/gateway-clients.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** POST /v1/payments keeping the raw response text, to compare replays byte for byte. */
async function post(baseUrl: string, secret: string, idempotencyKey: string | undefined, body: unknown): Promise<RawResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(`${baseUrl}/v1/payments`, {
    method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

const newKey = () => `idem_${randomUUID()}`;
const payment = (reference: string, amount = 1000) => ({ amount, currency: 'EUR', payment_method: 'card', reference });

describe('Idempotency-Key on POST /v1/payments', () => {
  let stack: TestStack;
  let merchant: Awaited<ReturnType<TestStack['newMerchantKey']>>;
  let other: Awaited<ReturnType<TestStack['newMerchantKey']>>;
  const gateways: GatewayProcess[] = [];
  const pools: Pool[] = [];

  before(async () => {
    stack = await startTestStack();
    merchant = await stack.newMerchantKey('test');
    other = await stack.newMerchantKey('test');
  });
  after(async () => {
    await Promise.all(gateways.map((g) => g.process.stop()));
    await Promise.all(pools.map((p) => p.end()));
    await stack?.close();
  });

  async function paymentsWithReference(reference: string): Promise<number> {
    const { rows } = await stack.query('SELECT count(*)::int AS n FROM payments.payments WHERE reference = $1', [reference]);
    return rows[0].n;
  }

  test('a replay returns the original status and identical body, marked replayed, with its own request id', async () => {
    const reference = `order_${randomUUID()}`;
    const idem = newKey();
    const first = await post(stack.baseUrl, merchant.secret, idem, payment(reference));
    assert.equal(first.status, 201, first.text);
    assert.match(first.body.id, /^pay_/);
    assert.equal(first.headers.get('idempotent-replayed'), null);

    // Same data, other key order and whitespace: the same request.
    const reordered = `{ "reference": ${JSON.stringify(reference)},\n  "payment_method": "card", "currency": "EUR", "amount": 1000 }`;
    for (const body of [payment(reference), reordered]) {
      const again = await post(stack.baseUrl, merchant.secret, idem, body);
      assert.equal(again.status, 201);
      assert.equal(again.text, first.text, 'byte-identical body');
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.match(again.headers.get('content-type')!, /^application\/json/);
      assert.match(again.headers.get('x-request-id')!, /^req_/);
      assert.notEqual(again.headers.get('x-request-id'), first.headers.get('x-request-id'));
    }

    const list = await request(stack.baseUrl, 'GET', `/v1/payments?reference=${reference}`, { key: merchant.secret });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((p: { id: string }) => p.id), [first.body.id]);
    assert.equal(await paymentsWithReference(reference), 1);
  });

  test('the same key with a different body is 422 idempotency_key_reused', async () => {
    const reference = `order_${randomUUID()}`;
    const idem = newKey();
    assert.equal((await post(stack.baseUrl, merchant.secret, idem, payment(reference))).status, 201);
    const reused = await post(stack.baseUrl, merchant.secret, idem, payment(reference, 2000));
    assert.equal(reused.status, 422);
    assert.equal(reused.body.error.type, 'idempotency_error');
    assert.equal(reused.body.error.code, 'idempotency_key_reused');
    assert.ok(reused.body.error.param === undefined || reused.body.error.param === 'Idempotency-Key');
    assert.equal(reused.body.request_id, reused.headers.get('x-request-id'));
    assert.equal(await paymentsWithReference(reference), 1);
  });

  test('a key belongs to its API key: the same string from another key is independent', async () => {
    const reference = `order_${randomUUID()}`;
    const idem = newKey();
    const mine = await post(stack.baseUrl, merchant.secret, idem, payment(reference));
    const theirs = await post(stack.baseUrl, other.secret, idem, payment(reference, 2000));
    assert.equal(mine.status, 201);
    assert.equal(theirs.status, 201);
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
    assert.notEqual(theirs.body.id, mine.body.id);
    assert.equal(theirs.body.amount, 2000);
  });

  test('a key of 256 characters is 422 on Idempotency-Key; 255 is accepted', async () => {
    const tooLong = await post(stack.baseUrl, merchant.secret, 'k'.repeat(256), payment(`order_${randomUUID()}`));
    assert.equal(tooLong.status, 422);
    assert.equal(tooLong.body.error.code, 'validation_error');
    assert.equal(tooLong.body.error.param, 'Idempotency-Key');
    const longest = `${randomUUID()}`.padEnd(255, 'k');
    const ok = await post(stack.baseUrl, merchant.secret, longest, payment(`order_${randomUUID()}`));
    assert.equal(ok.status, 201, ok.text);
  });

  test('a request refused by validation leaves no record: the key then works with a valid body', async () => {
    const reference = `order_${randomUUID()}`;
    const idem = newKey();
    const invalid = await post(stack.baseUrl, merchant.secret, idem, { ...payment(reference), amount: 0 });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.error.code, 'validation_error');
    const { rowCount } = await stack.query('SELECT 1 FROM gateway.idempotency_keys WHERE idempotency_key = $1', [idem]);
    assert.equal(rowCount, 0);
    assert.equal((await post(stack.baseUrl, merchant.secret, idem, payment(reference))).status, 201);
  });

  test('an error the handler answered with (4xx) is stored and replayed', async () => {
    const live = await stack.newMerchantKey('live');
    const idem = newKey();
    const body = { ...payment(`order_${randomUUID()}`), test_scenario: 'success' };
    const first = await post(stack.baseUrl, live.secret, idem, body);
    assert.equal(first.status, 400);
    assert.equal(first.body.error.code, 'test_scenario_not_allowed');
    const again = await post(stack.baseUrl, live.secret, idem, body);
    assert.equal(again.status, 400);
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  });

  test('a 5xx is not stored (the retry runs again); records expire after the TTL (gateway on a movable clock)', async () => {
    const pool = createPool(stack.db.url, 'gateway', 2);
    pools.push(pool);
    const clients = gatewayClients({ payments: stack.serviceUrls.payments }, stack.internalToken);
    const real = clients.payments;
    let calls = 0;
    let failNext = true;
    const payments = {
      ...real,
      createPayment: async (req: Parameters<typeof real.createPayment>[0]) => {
        calls++;
        if (failNext) {
          failNext = false;
          throw new ConnectError('payments is down', Code.Unavailable);
        }
        return real.createPayment(req);
      },
    } as unknown as Client<typeof PaymentsService>;
    let offsetMs = 0;
    const config = loadConfig({});
    const app = build({
      pool, clients: { ...clients, payments }, clock: { now: () => new Date(Date.now() + offsetMs) },
      logger: createLogger('test', 'silent'), config,
    });
    try {
      const reference = `order_${randomUUID()}`;
      const idem = newKey();
      const send = () => app.inject({
        method: 'POST', url: '/v1/payments', payload: payment(reference),
        headers: { authorization: `Bearer ${merchant.secret}`, 'idempotency-key': idem },
      });
      const unavailable = await send();
      assert.equal(unavailable.statusCode, 503);
      const retried = await send();
      assert.equal(retried.statusCode, 201, retried.body);
      assert.equal(retried.headers['idempotent-replayed'], undefined);
      assert.equal(calls, 2, 'the retry reached the service');
      const replay = await send();
      assert.equal(replay.body, retried.body);
      assert.equal(calls, 2);

      offsetMs = config.idempotencyTtlHours * 3_600_000;
      // The payments part keeps the key bound for the same TTL on its own clock, which this test cannot move.
      await stack.query(`UPDATE payments.idempotency_bindings SET expires_at = now() WHERE idempotency_key = $1`, [idem]);
      const afterTtl = await send();
      assert.equal(afterTtl.statusCode, 201);
      assert.equal(afterTtl.headers['idempotent-replayed'], undefined);
      assert.notEqual(JSON.parse(afterTtl.body).id, JSON.parse(retried.body).id, 'an expired key runs as new');
      assert.equal(calls, 3);
    } finally {
      await app.close();
    }
  });

  test('store: claims, TTL expiry, lock expiry with fencing, release and sweeping, at explicit times', async () => {
    const pool = createPool(stack.db.url, 'gateway', 2);
    pools.push(pool);
    const store = createStore(pool);
    const t0 = new Date('2030-01-01T00:00:00Z');
    const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
    const key = newKey();
    const claim = (now: Date, requestHash = 'h1') => store.claimIdempotencyKey({
      apiKeyId: merchant.keyId, key, requestHash, now,
      lockedUntil: new Date(now.getTime() + 120_000), expiresAt: new Date(now.getTime() + 24 * 3_600_000),
    });
    const scope = { apiKeyId: merchant.keyId, key };

    const first = await claim(t0);
    assert.equal(first.outcome, 'claimed');
    assert.deepEqual(await claim(at(119)), { outcome: 'in_progress' });
    assert.deepEqual(await claim(at(119), 'h2'), { outcome: 'mismatch' });
    // The runner died: after its lock the same request takes the key over, another body still may not.
    assert.deepEqual(await claim(at(121), 'h2'), { outcome: 'mismatch' });
    const second = await claim(at(121));
    assert.equal(second.outcome, 'claimed');
    assert.deepEqual(await claim(at(122)), { outcome: 'in_progress' });
    // The first runner's late answer is fenced off; the one holding the key records its own.
    assert.equal(await store.completeIdempotencyKey(scope, (first as { token: string }).token, 201, '{"late":true}'), false);
    assert.equal(await store.completeIdempotencyKey(scope, (second as { token: string }).token, 201, '{"id":"x"}'), true);
    assert.deepEqual(await claim(at(500)), { outcome: 'completed', status: 201, body: '{"id":"x"}' });
    assert.deepEqual(await claim(at(500), 'h2'), { outcome: 'mismatch' });

    // Expires 24 hours after the claim that produced it (t0 + 121s); then the key is free for anything.
    assert.equal((await claim(at(121 + 24 * 3600 - 1), 'h2')).outcome, 'mismatch');
    const reused = await claim(at(121 + 24 * 3600), 'h2');
    assert.equal(reused.outcome, 'claimed');

    // Released (a 5xx): the next attempt runs.
    assert.equal(await store.releaseIdempotencyKey(scope, (reused as { token: string }).token), true);
    assert.equal((await claim(at(121 + 24 * 3600 + 1), 'h3')).outcome, 'claimed');

    // Sweeping deletes only what has expired.
    const count = async () =>
      (await pool.query('SELECT count(*)::int AS n FROM idempotency_keys WHERE idempotency_key = $1', [key])).rows[0].n;
    await store.deleteExpiredIdempotencyKeys(at(200));
    assert.equal(await count(), 1);
    await store.deleteExpiredIdempotencyKeys(at(3 * 24 * 3600));
    assert.equal(await count(), 0);
  });

  test('store: claims arriving together share one statement; the same key twice in it, the first claims', async () => {
    const pool = createPool(stack.db.url, 'gateway', 4);
    pools.push(pool);
    const store = createStore(pool);
    const now = new Date('2031-01-01T00:00:00Z');
    const claim = (key: string, requestHash = 'h1') => store.claimIdempotencyKey({
      apiKeyId: merchant.keyId, key, requestHash, now,
      lockedUntil: new Date(now.getTime() + 120_000), expiresAt: new Date(now.getTime() + 24 * 3_600_000),
    });
    const [first, a, b, c, done] = [newKey(), newKey(), newKey(), newKey(), newKey()];
    const claimedDone = await claim(done);
    assert.ok(claimedDone.outcome === 'claimed');
    await store.completeIdempotencyKey({ apiKeyId: merchant.keyId, key: done }, claimedDone.token, 201, '{"id":"d"}');

    // Counted by wrapping the pool's query: `first` goes alone, the rest come while it is under way.
    const query = pool.query;
    let statements = 0;
    pool.query = ((...args: unknown[]) => {
      statements++;
      return (query as (...a: unknown[]) => unknown).apply(pool, args);
    }) as Pool['query'];
    const results = await Promise.all([
      claim(first), claim(a), claim(b), claim(a), claim(a, 'h2'), claim(done), claim(done, 'h2'), claim(c),
    ]).finally(() => { pool.query = query; });
    // What each would have got one after the other, as concurrent duplicates get today.
    assert.deepEqual(results.map((r) => r.outcome), [
      'claimed', 'claimed', 'claimed', 'in_progress', 'mismatch', 'completed', 'mismatch', 'claimed',
    ]);
    assert.deepEqual(results[5], { outcome: 'completed', status: 201, body: '{"id":"d"}' });
    // `first` alone, the other seven's claims in one statement, then a read for each of the four
    // that did not claim: six statements for eight claims.
    assert.equal(statements, 6);
    const { rows } = await pool.query(
      'SELECT idempotency_key, locked_by FROM idempotency_keys WHERE idempotency_key = ANY($1)', [[a, b, c]],
    );
    const holder = new Map(rows.map((r) => [r.idempotency_key, r.locked_by]));
    for (const [i, key] of [[1, a], [2, b], [7, c]] as const) {
      assert.equal(holder.get(key), (results[i] as { token: string }).token, 'the record holds its claimer\'s token');
    }
  });

  test('concurrent requests with one key over three gateway replicas create exactly one payment', async () => {
    gateways.push(...(await startGatewayProcesses(stack, 2)));
    const bases = [stack.baseUrl, gateways[0].baseUrl, gateways[1].baseUrl];
    const reference = `order_${randomUUID()}`;
    const idem = newKey();
    const results = await Promise.all(
      Array.from({ length: 21 }, (_, i) => post(bases[i % bases.length], merchant.secret, idem, payment(reference, 4321))),
    );

    const created = results.filter((r) => r.status === 201);
    const busy = results.filter((r) => r.status === 429);
    assert.equal(created.length + busy.length, results.length, results.map((r) => `${r.status} ${r.text}`).join('\n'));
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((r) => r.body.id)).size, 1, 'one payment id among the 201s');
    assert.equal(new Set(created.map((r) => r.text)).size, 1, 'replays carry the identical body');
    assert.equal(created.filter((r) => r.headers.get('idempotent-replayed') === null).length, 1, 'one ran the handler');
    for (const r of busy) {
      assert.equal(r.body.error.code, 'idempotency_in_progress');
      assert.equal(r.body.error.type, 'idempotency_error');
      assert.equal(r.headers.get('retry-after'), '1');
    }
    assert.equal(await paymentsWithReference(reference), 1);

    const later = await post(bases[1], merchant.secret, idem, payment(reference, 4321));
    assert.equal(later.status, 201);
    assert.equal(later.text, created[0].text);
  });

  test('a gateway killed mid-request holds its key only until the lock expires', async () => {
    // A "payments service" that accepts connections and never answers: the request hangs in the handler.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
      const [dying] = await startGatewayProcesses(stack, 1, { PAYMENTS_URL: silentUrl, IDEMPOTENCY_LOCK_SECONDS: '2' });
      const [survivor] = await startGatewayProcesses(stack, 1, { IDEMPOTENCY_LOCK_SECONDS: '2' });
      gateways.push(dying, survivor);

      const reference = `order_${randomUUID()}`;
      const idem = newKey();
      const hanging = post(dying.baseUrl, merchant.secret, idem, payment(reference)).then(
        () => assert.fail('the killed gateway answered'), (err: unknown) => err,
      );
      // Wait until the dying gateway holds the claim.
      for (let i = 0; ; i++) {
        const { rows } = await stack.query('SELECT state FROM gateway.idempotency_keys WHERE idempotency_key = $1', [idem]);
        if (rows[0]?.state === 'in_progress') break;
        assert.ok(i < 200, 'the request never claimed its key');
        await sleep(10);
      }
      dying.process.child.kill('SIGKILL');
      await dying.process.stop();
      assert.ok((await hanging) instanceof Error, 'the client saw the connection die');

      const busy = await post(survivor.baseUrl, merchant.secret, idem, payment(reference));
      assert.equal(busy.status, 429, busy.text);
      assert.equal(busy.body.error.code, 'idempotency_in_progress');
      assert.equal(busy.headers.get('retry-after'), '1');

      await sleep(2500);
      const retried = await post(survivor.baseUrl, merchant.secret, idem, payment(reference));
      assert.equal(retried.status, 201, retried.text);
      assert.equal(retried.headers.get('idempotent-replayed'), null);
      assert.equal(await paymentsWithReference(reference), 1);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
