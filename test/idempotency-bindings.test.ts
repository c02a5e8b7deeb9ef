import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { RefundsService } from '../proto/gen/svc/payments/v1/refunds_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { build } from '../gateway/index.js';
import { loadConfig } from '../services/platform/config.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { fromConnectError } from '../services/contract/index.js';
import { gatewayClients } from './helpers/gateway-clients.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

// The Idempotency-Key travels to the part that moves the money and is bound there to what it moved:
// whatever the gateway's record says (expired, lost to a dead gateway, freed by a 5xx), a keyed
// request reaching the part again answers the same resource and moves nothing more.

const DAY = 86_400_000;
const clock = offsetClock();

describe('Idempotency-Keys bound in the parts that move money', () => {
  let stack: TestStack;
  let merchant: Awaited<ReturnType<TestStack['newMerchantKey']>>;
  let payments: Client<typeof PaymentsService>;
  let refunds: Client<typeof RefundsService>;
  let payouts: Client<typeof PayoutsService>;
  const pools: Pool[] = [];

  before(async () => {
    stack = await startTestStack({ clock });
    merchant = await stack.newMerchantKey('test');
    const transport = (part: 'payments' | 'payouts') => createPeerTransport(stack.serviceUrls[part], stack.internalToken);
    payments = createClient(PaymentsService, transport('payments'));
    refunds = createClient(RefundsService, transport('payments'));
    payouts = createClient(PayoutsService, transport('payouts'));
  });
  after(async () => {
    for (const p of pools) await p.end();
    await stack?.close();
  });

  const scope = () => ({ merchantId: merchant.merchantId, projectId: merchant.projectId, mode: 'test' });
  const count = async (sql: string, values: unknown[]) => (await stack.query(sql, values)).rows[0].n as number;
  const paymentsWithReference = (reference: string) =>
    count('SELECT count(*)::int AS n FROM payments.payments WHERE reference = $1', [reference]);
  const paymentRequest = (reference: string, idempotencyKey: string, extra: Record<string, unknown> = {}) => ({
    scope: scope(), amount: 1500n, currency: 'EUR', paymentMethod: { type: 'card' }, captureMethod: 'automatic',
    reference, metadata: {}, testScenario: 'success', idempotencyKey, ...extra,
  });
  /** The contract error a call was refused with, or the answer. */
  const settle = <T>(call: Promise<T>) => call.then((value) => ({ value }), (err: unknown) => ({ error: fromConnectError(err) }));

  test('concurrent keyed creates over gRPC: one payment; every answer is it or a retryable idempotency_in_progress', async () => {
    const reference = `order_${randomUUID()}`;
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 12 }, () => settle(payments.createPayment(paymentRequest(reference, key)))));
    assert.equal(await paymentsWithReference(reference), 1);
    const ids = new Set<string>();
    for (const a of answers) {
      if ('value' in a) ids.add(a.value.payment!.id);
      else assert.deepEqual([a.error.code, a.error.status], ['idempotency_in_progress', 503]);
    }
    assert.equal(ids.size, 1, 'every answered payment is the one payment');
    const later = await payments.createPayment(paymentRequest(reference, key));
    assert.deepEqual(new Set([later.payment!.id]), ids);
    assert.equal(later.payment!.status, 'successful');
  });

  test('the same key with another request is idempotency_key_reused (422), and moves nothing', async () => {
    const reference = `order_${randomUUID()}`;
    const key = randomUUID();
    const paid = await payments.createPayment(paymentRequest(reference, key));
    const other = await settle(payments.createPayment(paymentRequest(reference, key, { amount: 1501n })));
    assert.ok('error' in other);
    assert.deepEqual([other.error.code, other.error.status], ['idempotency_key_reused', 422]);
    const capture = await settle(payments.capturePayment({ scope: scope(), id: paid.payment!.id, idempotencyKey: key }));
    assert.ok('error' in capture, 'a payment key is not a capture key');
    assert.equal(capture.error.code, 'idempotency_key_reused');
    assert.equal(await paymentsWithReference(reference), 1);
  });

  test('a keyed refund, capture and cancel run once; their retries answer the resource as it stands', async () => {
    const paid = await payments.createPayment(paymentRequest(`order_${randomUUID()}`, randomUUID()));
    const refundKey = randomUUID();
    const refund = () => refunds.createRefund({ scope: scope(), paymentId: paid.payment!.id, amount: 500n, metadata: {}, idempotencyKey: refundKey });
    const [first, second] = await Promise.all([settle(refund()), settle(refund())]);
    const third = await refund();
    assert.equal(await count('SELECT count(*)::int AS n FROM payments.refunds WHERE payment_id = $1', [paid.payment!.id]), 1);
    for (const a of [first, second]) if ('value' in a) assert.equal(a.value.refund!.id, third.refund!.id);
    assert.equal(third.refund!.status, 'successful');

    const held = await payments.createPayment(paymentRequest(`order_${randomUUID()}`, randomUUID(), { captureMethod: 'manual' }));
    const captureKey = randomUUID();
    const captured = await payments.capturePayment({ scope: scope(), id: held.payment!.id, amount: 1000n, idempotencyKey: captureKey });
    const again = await payments.capturePayment({ scope: scope(), id: held.payment!.id, amount: 1000n, idempotencyKey: captureKey });
    assert.equal(captured.payment!.status, 'captured');
    assert.equal(again.payment!.status, 'captured', 'a retried capture answers the payment, not 409');
    assert.equal(again.payment!.capturedAmount, 1000n);
    const unkeyed = await settle(payments.capturePayment({ scope: scope(), id: held.payment!.id, amount: 1000n }));
    assert.ok('error' in unkeyed);
    assert.equal(unkeyed.error.code, 'invalid_state_transition', 'without the key it is a second capture');

    const open = await payments.createPayment(paymentRequest(`order_${randomUUID()}`, randomUUID(), { captureMethod: 'manual' }));
    const cancelKey = randomUUID();
    await payments.cancelPayment({ scope: scope(), id: open.payment!.id, idempotencyKey: cancelKey });
    const cancelledAgain = await payments.cancelPayment({ scope: scope(), id: open.payment!.id, idempotencyKey: cancelKey });
    assert.equal(cancelledAgain.payment!.status, 'cancelled');
    const events = await count(
      `SELECT count(*)::int AS n FROM payments.outbox WHERE type = 'payment.cancelled' AND payload->'data'->'object'->>'id' = $1`,
      [open.payment!.id],
    );
    assert.equal(events, 1, 'one cancellation, one event');
  });

  test('a keyed payout is created once, even when its requests race', async () => {
    await payments.createPayment(paymentRequest(`order_${randomUUID()}`, randomUUID(), { amount: 100_000n }));
    clock.offsetMs += DAY + 60_000;
    const ledger = createClient(LedgerService, createPeerTransport(stack.serviceUrls.ledger, stack.internalToken));
    for (let i = 0; i < 100; i++) {
      await ledger.runSettlementCycle({});
      const funds = await ledger.getSettledFunds({ scope: scope(), currency: 'EUR' });
      if (funds.settledByProviders > 0n) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const key = randomUUID();
    const reference = `payout_${randomUUID()}`;
    const payout = () => payouts.createPayout({
      scope: scope(), amount: 1000n, currency: 'EUR', reference, metadata: {}, idempotencyKey: key,
      destination: { type: 'bank_account', token: 'ben_demo_1', display: 'DE89 •••• 3000' },
    });
    const answers = await Promise.all(Array.from({ length: 6 }, () => payout()));
    assert.equal(new Set(answers.map((a) => a.payout!.id)).size, 1);
    assert.equal(await count('SELECT count(*)::int AS n FROM payouts.payouts WHERE reference = $1', [reference]), 1);
  });

  test('a keyed request whose call to payments is lost answers 503 idempotency_in_progress; the retry gets the payment', async () => {
    const real = gatewayClients({ payments: stack.serviceUrls.payments }, stack.internalToken).payments;
    let loseNext = true;
    // The part commits and charges, then the connection drops before its answer reaches the gateway.
    const lossy = {
      ...real,
      createPayment: async (req: Parameters<typeof real.createPayment>[0]) => {
        const answer = await real.createPayment(req);
        if (loseNext) {
          loseNext = false;
          throw new ConnectError('stream reset', Code.Internal);
        }
        return answer;
      },
    } as unknown as Client<typeof PaymentsService>;
    const pool = createPool(stack.db.url, 'gateway', 2);
    pools.push(pool);
    const app = build({
      pool, clients: { ...gatewayClients({ payments: stack.serviceUrls.payments }, stack.internalToken), payments: lossy },
      clock, logger: createLogger('test', 'silent'), config: loadConfig({}),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const reference = `order_${randomUUID()}`;
      const send = (key?: string) => request(base, 'POST', '/v1/payments', {
        key: merchant.secret,
        body: { amount: 2500, currency: 'EUR', payment_method: 'card', reference, test_scenario: 'success' },
        headers: key ? { 'idempotency-key': key } : {},
      });
      const key = randomUUID();
      const lost = await send(key);
      assert.equal(lost.status, 503);
      assert.equal(lost.body.error.code, 'idempotency_in_progress');
      assert.equal(lost.body.error.type, 'idempotency_error');
      assert.equal(lost.headers.get('retry-after'), '1');
      assert.match(lost.body.request_id, /^req_/);
      const retried = await send(key);
      assert.equal(retried.status, 201);
      assert.equal(retried.body.status, 'successful');
      assert.equal(await paymentsWithReference(reference), 1, 'the retry found the payment; nothing was charged twice');

      loseNext = true;
      const unkeyed = await send();
      assert.equal(unkeyed.status, 500, 'without a key the failure stays what it was');
    } finally {
      await app.close();
    }
  });
});
