import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { ScopeSchema } from '../proto/gen/svc/common/v1/common_pb.js';
import { CreatePaymentRequestSchema } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { PlanPaymentResponseSchema } from '../proto/gen/svc/routing/v1/routing_pb.js';
import { ConnectError } from '@connectrpc/connect';
import {
  createApply, createDisputeParts, createDisputeStore, DisputeViewRefused, type ProviderDisputeView,
} from '../services/payments/disputes/index.js';
import { createLogger } from '../services/platform/logger.js';
import { commitChange, createStore, open } from '../services/payments/payments/index.js';
import { newPayment } from '../services/payments/payments/new-payment.js';
import { systemClock } from '../services/platform/clock.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import { migrate } from '../services/platform/migrate.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

// applyProviderView against real Postgres: each money movement is written once, with its one
// internal.dispute.funds_moved, under redelivery and concurrent applies; an older view never moves
// a dispute back (docs/disputes.md).

let db: TestDatabase;
let pool: Pool;
let apply: ReturnType<typeof createApply>['applyProviderView'];

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 'payments', 8);
  await migrate(pool, 'payments', 'services/payments');
  const store = createStore(pool);
  apply = createApply({ store, disputes: createDisputeStore(pool), clock: systemClock, relay: { kick() {} } }).applyProviderView;
});
after(async () => {
  await pool?.end();
  await db?.drop();
});

const scope = create(ScopeSchema, { merchantId: 'mer_dp', projectId: 'prj_dp', mode: 'test' });
const plan = create(PlanPaymentResponseSchema, {
  risk: { decisionId: 'rsk_1', score: 5, outcome: 'allow' },
  routing: {
    decisionId: 'rtd_1', rule: 'default',
    candidates: [{ providerId: 'prv_a', providerCode: 'demo_alpha', providerName: 'Demo Alpha', providerAccountId: 'pac_a' }],
  },
});

/** A successful 25.00 EUR payment at demo_alpha (or the plan's provider). */
async function successfulPayment(route = plan): Promise<string> {
  const store = createStore(pool);
  const req = create(CreatePaymentRequestSchema, { scope, amount: 2500n, currency: 'EUR', paymentMethod: { type: 'card', token: 'tok_x' } });
  const at = new Date();
  const payment = newPayment(scope, req, newId('pay', at), route, at);
  const change = open(payment, route, { at, processingTimeMs: 1 });
  payment.status = 'successful';
  payment.capturedAmount = payment.amount;
  payment.attempts[0].status = 'succeeded';
  await commitChange(store, change);
  return payment.id;
}

let seq = 0;
function view(paymentId: string, over: Partial<ProviderDisputeView> = {}): ProviderDisputeView {
  return {
    providerCode: 'demo_alpha', providerDisputeId: `du_${paymentId}`, paymentId, stage: 'chargeback', status: 'needs_response',
    reason: 'fraudulent', amount: 2500n, currency: 'EUR', feeAmount: 1500n, fundsWithdrawn: true,
    evidenceDueBy: new Date('2026-12-20T00:00:00Z'), occurredAt: new Date(Date.UTC(2026, 10, 1, 0, 0, seq++)), ...over,
  };
}

async function counts(paymentId: string) {
  const { rows } = await pool.query(
    `SELECT (SELECT count(*)::int FROM disputes WHERE payment_id = $1) AS disputes,
       (SELECT count(*)::int FROM dispute_history h JOIN disputes d ON d.id = h.dispute_id WHERE d.payment_id = $1) AS history,
       (SELECT count(*)::int FROM dispute_fund_movements m JOIN disputes d ON d.id = m.dispute_id WHERE d.payment_id = $1) AS movements,
       (SELECT count(*)::int FROM outbox WHERE type = 'internal.dispute.funds_moved' AND payload->'data'->'object'->>'payment_id' = $1) AS funds_events,
       (SELECT count(*)::int FROM outbox WHERE type LIKE 'dispute.%' AND payload->'data'->'object'->>'payment_id' = $1) AS public_events`,
    [paymentId],
  );
  return rows[0];
}

async function fundsEvents(paymentId: string) {
  const { rows } = await pool.query(
    `SELECT payload->'data'->'object' AS o FROM outbox
     WHERE type = 'internal.dispute.funds_moved' AND payload->'data'->'object'->>'payment_id' = $1 ORDER BY created_at, event_id`,
    [paymentId],
  );
  return rows.map((r) => r.o as { id: string; kind: string; amount: number; fee_amount: number });
}

test('the same view applied twice at once opens one dispute and withdraws once', async () => {
  const paymentId = await successfulPayment();
  const v = view(paymentId);
  const results = await Promise.all([apply(scope, v), apply(scope, v), apply(scope, v)]);
  assert.deepEqual(results.map((r) => r.verdict).sort(), ['confirmed', 'confirmed', 'created']);
  assert.equal(new Set(results.map((r) => r.dispute.id)).size, 1);
  assert.match(results[0].dispute.id, /^dp_/);
  assert.deepEqual(await counts(paymentId), { disputes: 1, history: 1, movements: 1, funds_events: 1, public_events: 1 });
  const [moved] = await fundsEvents(paymentId);
  assert.match(moved.id, /^dpm_/);
  assert.deepEqual([moved.kind, moved.amount, moved.fee_amount], ['withdrawal', 2500, 1500]);
  // Redelivered later: nothing more.
  assert.equal((await apply(scope, v)).verdict, 'confirmed');
  assert.equal((await counts(paymentId)).funds_events, 1);
});

test('won reinstates once; an older view never moves the dispute back', async () => {
  const paymentId = await successfulPayment();
  const opened = view(paymentId);
  const review = view(paymentId, { status: 'under_review' });
  const won = view(paymentId, { status: 'won', fundsWithdrawn: false });
  await apply(scope, opened);
  assert.equal((await Promise.all([apply(scope, won), apply(scope, won)])).filter((r) => r.verdict === 'applied').length, 1);
  // under_review was made before won but arrives after it, then the opening again: both ignored.
  assert.equal((await apply(scope, review)).verdict, 'ignored');
  assert.equal((await apply(scope, opened)).verdict, 'ignored');
  const { rows } = await pool.query(`SELECT status, funds_withdrawn FROM disputes WHERE payment_id = $1`, [paymentId]);
  assert.deepEqual(rows[0], { status: 'won', funds_withdrawn: false });
  assert.deepEqual((await fundsEvents(paymentId)).map((e) => [e.kind, e.amount, e.fee_amount]), [['withdrawal', 2500, 1500], ['reinstatement', 2500, 0]]);
  const events = await pool.query(
    `SELECT type FROM outbox WHERE type LIKE 'dispute.%' AND payload->'data'->'object'->>'payment_id' = $1 ORDER BY created_at, event_id`, [paymentId],
  );
  assert.deepEqual(events.rows.map((r) => r.type), ['dispute.created', 'dispute.closed']);
});

test('a newer view of a lower rank is ignored too: a closed dispute stays closed within its stage', async () => {
  const paymentId = await successfulPayment();
  await apply(scope, view(paymentId, { status: 'lost' }));
  assert.equal((await apply(scope, view(paymentId, { status: 'needs_response' }))).verdict, 'ignored');
  assert.deepEqual((await fundsEvents(paymentId)).map((e) => e.kind), ['withdrawal']);
});

test('reversed then a second chargeback withdraws again; lost moves nothing', async () => {
  const paymentId = await successfulPayment();
  await apply(scope, view(paymentId));
  await apply(scope, view(paymentId, { status: 'won', fundsWithdrawn: false }));
  const second = view(paymentId, { stage: 'pre_arbitration', status: 'needs_response', fundsWithdrawn: true });
  await Promise.all([apply(scope, second), apply(scope, second)]);
  await apply(scope, view(paymentId, { stage: 'pre_arbitration', status: 'lost', fundsWithdrawn: true }));
  assert.deepEqual((await fundsEvents(paymentId)).map((e) => e.kind), ['withdrawal', 'reinstatement', 'withdrawal']);
  const { rows } = await pool.query(`SELECT stage, status, movements FROM disputes WHERE payment_id = $1`, [paymentId]);
  assert.deepEqual(rows[0], { stage: 'pre_arbitration', status: 'lost', movements: 3 });
});

test('an inquiry moves no money, even when its view says withdrawn', async () => {
  const paymentId = await successfulPayment();
  await apply(scope, view(paymentId, { stage: 'inquiry', fundsWithdrawn: true }));
  await apply(scope, view(paymentId, { stage: 'inquiry', status: 'cancelled', fundsWithdrawn: false }));
  assert.deepEqual(await counts(paymentId), { disputes: 1, history: 2, movements: 0, funds_events: 0, public_events: 2 });
});

test('a view the payment cannot carry is refused and changes nothing', async () => {
  const paymentId = await successfulPayment();
  await assert.rejects(apply(scope, view(paymentId, { amount: 2501n })), (e) => e instanceof DisputeViewRefused && e.code === 'amount_out_of_range');
  await assert.rejects(apply(scope, view(paymentId, { currency: 'USD' })), (e) => e instanceof DisputeViewRefused && e.code === 'currency_mismatch');
  const other = create(ScopeSchema, { merchantId: 'mer_dp', projectId: 'prj_other', mode: 'test' });
  await assert.rejects(apply(other, view(paymentId)), (e) => e instanceof DisputeViewRefused && e.code === 'payment_not_found');
  assert.equal((await counts(paymentId)).disputes, 0);
});

test('accepting a dispute of a provider without dispute actions is dispute_action_unsupported, and changes nothing', async () => {
  const stripe = create(PlanPaymentResponseSchema, {
    risk: { decisionId: 'rsk_2', score: 5, outcome: 'allow' },
    routing: {
      decisionId: 'rtd_2', rule: 'default',
      candidates: [{ providerId: 'prv_s', providerCode: 'stripe', providerName: 'Stripe', providerAccountId: 'pac_s' }],
    },
  });
  const paymentId = await successfulPayment(stripe);
  const parts = createDisputeParts({
    pool, store: createStore(pool), clock: systemClock, relay: { kick() {} }, logger: createLogger('test', 'silent'), intervalMs: 1000,
  });
  const { dispute } = await parts.applyProviderView(scope, view(paymentId, { providerCode: 'stripe' }));
  for (const act of [() => parts.disputes.accept(scope, dispute.id), () => parts.disputes.evidence(scope, dispute.id, {}, true)]) {
    await assert.rejects(act(), (e) => e instanceof ConnectError && e.rawMessage.includes('does not take dispute responses')
      && e.metadata.get('svc-error-code') === 'dispute_action_unsupported');
  }
  assert.equal((await parts.disputes.get(scope, dispute.id)).dispute.status, 'needs_response');
});
