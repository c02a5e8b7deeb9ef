// A licensed provider plugged in through the connector interface (docs/connectors.md), reached by
// live keys through the HTTP gateway: what it is sent, and how its answers move the payment.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type {
  AuthorizeRequest, AuthorizeResult, Connector, PaymentStatusResult, RefundRequest,
} from '../services/payments/index.js';
import { eventually } from './helpers/eventually.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { request } from './helpers/stack.js';

/**
 * A provider that approves everything and remembers each request it got, except for the token
 * `tok_silent`: then authorize never answers, and its status stays unknown until the test says
 * what the provider decided (`later`).
 */
function recordingConnector() {
  const authorized: AuthorizeRequest[] = [];
  const statusQueries: AuthorizeRequest[] = [];
  const later = new Map<string, PaymentStatusResult>();
  const refunds: RefundRequest[] = [];
  // `tok_held`: authorize tells the test it was called, then answers when the test lets it.
  let held: { called: (req: AuthorizeRequest) => void; answer: Promise<AuthorizeResult> } | undefined;
  const approve = (req: AuthorizeRequest): AuthorizeResult => ({
    outcome: 'success', providerPaymentId: `acme_${req.attemptId}`, providerCode: '00', providerMessage: 'Approved', fee: 40n,
  });
  const connector: Connector = {
    async authorize(req) {
      authorized.push(req);
      if (req.paymentMethodToken === 'tok_silent') return new Promise(() => undefined);
      if (req.paymentMethodToken === 'tok_held' && held) {
        held.called(req);
        return held.answer;
      }
      return approve(req);
    },
    async getStatus(req) {
      statusQueries.push(req);
      if (authorized.find((a) => a.attemptId === req.attemptId)?.paymentMethodToken !== 'tok_silent') {
        return { found: true, ...approve(req) };
      }
      return later.get(req.paymentId) ?? {
        found: true, outcome: 'unknown', providerPaymentId: null, providerCode: null, providerMessage: 'Still checking', fee: 0n,
      };
    },
    async refund(req) {
      refunds.push(req);
      // The first call of a 13.13 refund is lost on the way back (the provider did refund it).
      if (req.amount === 1313n && refunds.filter((r) => r.refundId === req.refundId).length === 1) {
        throw new Error('connection reset by the provider');
      }
      return { outcome: 'success', providerRefundId: `acme_rf_${req.refundId}`, providerCode: '00', providerMessage: 'Refunded' };
    },
  };
  /** Holds the next `tok_held` authorize: resolves with its request when called; `answer` lets it return. */
  function holdNext() {
    let called!: (req: AuthorizeRequest) => void;
    let answer!: (r: AuthorizeResult) => void;
    const reached = new Promise<AuthorizeRequest>((r) => (called = r));
    held = { called, answer: new Promise<AuthorizeResult>((r) => (answer = r)) };
    return { reached, answer };
  }
  return { connector, authorized, statusQueries, later, approve, refunds, holdNext };
}

describe('a licensed provider connector, reached by live keys', () => {
  let stack: LicensedProviderStack;
  const acme = recordingConnector();

  before(async () => {
    stack = await startLicensedProviderStack({
      connectors: { acme_pay: acme.connector },
      env: { PROVIDER_TIMEOUT_MS: '300', RECONCILIATION_SWEEP_MS: '100' },
    });
    await stack.query(
      `INSERT INTO routing_risk.providers (id, code, name, kind, methods) VALUES ('prv_acme', 'acme_pay', 'Acme Pay', 'licensed', '{card}')`,
    );
  });
  after(async () => {
    await stack?.close();
  });

  const connectedLiveMerchant = () => stack.liveMerchantAt('prv_acme', { fixed: 25, bps: 150 });

  test('a live payment goes to the connector with its amount, method token and attempt reference', async () => {
    const m = await connectedLiveMerchant();
    const res = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'tok_acme_one_off', provider_code: 'acme_pay' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'successful');
    assert.equal(res.body.route.provider.code, 'acme_pay');
    assert.equal(res.body.attempts[0].provider_payment_id, `acme_${res.body.attempts[0].id}`);
    assert.equal(res.body.fee.amount, 40);

    const sent = acme.authorized.find((r) => r.paymentId === res.body.id)!;
    assert.equal(sent.amount, 2500n);
    assert.equal(sent.currency, 'EUR');
    assert.equal(sent.methodType, 'card');
    assert.equal(sent.attemptId, res.body.attempts[0].id);
    assert.equal(sent.paymentMethodToken, 'tok_acme_one_off');
    assert.equal(sent.testScenario, undefined);
    // The token is the provider's business: it is not stored with the payment.
    const { rows } = await stack.query('SELECT row_to_json(p)::text AS r FROM payments.payments p WHERE id = $1', [res.body.id]);
    assert.ok(!rows[0].r.includes('tok_acme_one_off'));
  });

  test('a stored method\'s token reaches the provider that issued it', async () => {
    const m = await connectedLiveMerchant();
    const stored = await request(stack.baseUrl, 'POST', '/v1/payment-methods', {
      key: m.secret, body: { type: 'card', provider_token: 'tok_acme_stored', provider_code: 'acme_pay' },
    });
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    const res = await stack.pay(m.secret, { payment_method: { type: 'card', id: stored.body.id } });
    assert.equal(res.body.status, 'successful');
    const sent = acme.authorized.find((r) => r.paymentId === res.body.id)!;
    assert.equal(sent.paymentMethodToken, 'tok_acme_stored');
  });

  test('a refund of a live payment goes to the same connector', async () => {
    const m = await connectedLiveMerchant();
    const paid = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'tok_acme_refund', provider_code: 'acme_pay' } });
    const refund = await request(stack.baseUrl, 'POST', `/v1/payments/${paid.body.id}/refund`, { key: m.secret, body: { amount: 1000 } });
    assert.equal(refund.status, 201);
    assert.equal(refund.body.status, 'successful');
    assert.equal(refund.body.provider_refund_id, `acme_rf_${refund.body.id}`);
  });

  const get = async (key: string, id: string) => (await request(stack.baseUrl, 'GET', `/v1/payments/${id}`, { key })).body;
  const ledgerRows = async (paymentId: string) =>
    (await stack.query(`SELECT type, status, amount FROM ledger.transactions WHERE payment_id = $1`, [paymentId])).rows;

  test('an outcome the provider could not tell is asked again until known; the charge then completes the payment', async () => {
    const m = await connectedLiveMerchant();
    const res = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'tok_silent', provider_code: 'acme_pay' } });
    assert.equal(res.body.status, 'processing');
    assert.equal(res.body.attempts[0].status, 'unknown');
    const attemptId = res.body.attempts[0].id;
    // Reconciliation keeps asking, and changes nothing while the provider cannot tell.
    await eventually('status queries', async () => (acme.statusQueries.filter((q) => q.attemptId === attemptId).length >= 3 ? true : undefined));
    assert.equal((await get(m.secret, res.body.id)).status, 'processing');
    const asked = acme.statusQueries.find((q) => q.attemptId === attemptId)!;
    assert.equal(asked.amount, 2500n);
    assert.equal(asked.account.id, `pac_acme_${m.projectId}`);
    assert.equal(asked.account.feeFixed, 25n);

    acme.later.set(res.body.id, { found: true, ...acme.approve(asked) });
    const done = await eventually('the payment to complete', async () => {
      const p = await get(m.secret, res.body.id);
      return p.status === 'successful' ? p : undefined;
    });
    assert.equal(done.attempts[0].status, 'succeeded');
    assert.equal(done.attempts[0].provider_payment_id, `acme_${attemptId}`);
    assert.equal(done.fee.amount, 40);
    const timeline = (await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}/timeline`, { key: m.secret })).body.data;
    const checked = timeline.filter((t: any) => t.type === 'attempt.status_checked').at(-1);
    assert.equal(checked.data.by, 'reconciliation');
    assert.deepEqual(timeline.filter((t: any) => t.type === 'event.emitted').map((t: any) => t.data.event_type),
      ['payment.created', 'payment.processing', 'payment.successful']);
    // The charge is in the books once, as one payment transaction.
    const rows = await eventually('the ledger to record the payment', async () => {
      const r = await ledgerRows(res.body.id);
      return r.length > 0 ? r : undefined;
    });
    assert.deepEqual(rows.map((r) => [r.type, r.status, Number(r.amount)]), [['payment', 'successful', 2500]]);
  });

  test('a provider that never received the attempt: the payment fails, nothing is recorded as charged', async () => {
    const m = await connectedLiveMerchant();
    const res = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'tok_silent', provider_code: 'acme_pay' } });
    assert.equal(res.body.status, 'processing');
    acme.later.set(res.body.id, { found: false });
    const failed = await eventually('the payment to fail', async () => {
      const p = await get(m.secret, res.body.id);
      return p.status === 'failed' ? p : undefined;
    });
    assert.equal(failed.failure.code, 'provider_timeout');
    assert.equal(failed.failure.category, 'technical');
    assert.equal(failed.attempts.length, 1, 'no other provider is tried after the request');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual((await ledgerRows(res.body.id)).filter((r) => r.status === 'successful'), []);
  });

  test('an attempt left in flight by a payments process that died is settled from the provider\'s answer', async () => {
    const m = await connectedLiveMerchant();
    const res = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'tok_acme_crash', provider_code: 'acme_pay' } });
    assert.equal(res.body.status, 'successful');
    // Counted before the attempt is reopened: reconciliation may ask about it (and settle it)
    // between the two updates below, before the test could count again.
    const before = acme.statusQueries.length;
    // The state right after the payment's first commit, as a process killed during the provider
    // call leaves it: payment created, its attempt in flight, long ago.
    await stack.query(
      `UPDATE payments.payment_attempts SET status = 'processing', outcome = NULL, provider_payment_id = NULL, fee_amount = 0,
         updated_at = now() - interval '1 hour' WHERE payment_id = $1`,
      [res.body.id],
    );
    await stack.query(
      `UPDATE payments.payments SET status = 'created', captured_amount = 0, fee_amount = 0, provider_payment_id = NULL WHERE id = $1`,
      [res.body.id],
    );
    const settled = await eventually('the orphaned attempt to be settled', async () => {
      const p = await get(m.secret, res.body.id);
      return p.status === 'successful' && acme.statusQueries.length > before ? p : undefined;
    });
    assert.equal(settled.attempts[0].status, 'succeeded');
    assert.equal(settled.captured_amount, 2500);
  });

  test('a refund whose answer was lost is sent again at once with the same id, and settles once', async () => {
    const m = await connectedLiveMerchant();
    const paid = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'tok_acme_lost_refund', provider_code: 'acme_pay' } });
    const res = await request(stack.baseUrl, 'POST', `/v1/payments/${paid.body.id}/refund`, { key: m.secret, body: { amount: 1313 } });
    assert.equal(res.status, 201);
    // The lost answer is asked for again at once under the refund's id (a second loss would leave it
    // processing for reconciliation: unreadable-provider-answers.test.ts).
    assert.equal(res.body.status, 'successful');
    // Its amount is spent: the rest of the payment is all that can be refunded.
    const tooMuch = await request(stack.baseUrl, 'POST', `/v1/payments/${paid.body.id}/refund`, { key: m.secret, body: { amount: 2500 - 1313 + 1 } });
    assert.equal(tooMuch.status, 422);
    assert.equal(tooMuch.body.error.param, 'amount');

    const settled = await eventually('the refund to settle', async () => {
      const r = await request(stack.baseUrl, 'GET', `/v1/refunds/${res.body.id}`, { key: m.secret });
      return r.body.status === 'successful' ? r.body : undefined;
    });
    assert.equal(settled.provider_refund_id, `acme_rf_${res.body.id}`);
    const calls = acme.refunds.filter((r) => r.refundId === res.body.id);
    assert.ok(calls.length >= 2, 'sent again');
    assert.ok(calls.every((c) => c.amount === 1313n && c.paymentId === paid.body.id), 'with the same refund');
    const payment = await get(m.secret, paid.body.id);
    assert.equal(payment.status, 'partially_refunded');
    assert.equal(payment.refunded_amount, 1313);
    const rows = await eventually('the ledger to record the refund', async () => {
      const r = (await ledgerRows(paid.body.id)).filter((x) => x.type === 'refund');
      return r.length > 0 ? r : undefined;
    });
    assert.deepEqual(rows.map((r) => [r.status, Number(r.amount)]), [['successful', -1313]]);
  });

  test('a request whose attempt reconciliation settled meanwhile answers the stored outcome and emits nothing twice', async () => {
    const m = await connectedLiveMerchant();
    const gate = acme.holdNext();
    const pending = stack.pay(m.secret, { payment_method: { type: 'card', token: 'tok_held', provider_code: 'acme_pay' } });
    const req = await gate.reached;
    // As reconciliation would, had this request stalled: the attempt is settled and the payment
    // completed by another writer while the provider's answer is still on its way here.
    await stack.query(
      `UPDATE payments.payment_attempts SET status = 'succeeded', outcome = 'success', provider_payment_id = 'acme_settled'
       WHERE id = $1`,
      [req.attemptId],
    );
    await stack.query(
      `UPDATE payments.payments SET status = 'successful', captured_amount = amount, provider_payment_id = 'acme_settled'
       WHERE id = $1`,
      [req.paymentId],
    );
    gate.answer({ ...acme.approve(req), providerPaymentId: 'acme_late' });
    const res = await pending;
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'successful');
    assert.equal(res.body.attempts[0].provider_payment_id, 'acme_settled', 'the stored outcome stands');
    const { rows } = await stack.query('SELECT type FROM payments.outbox WHERE payload->\'data\'->\'object\'->>\'id\' = $1', [req.paymentId]);
    assert.deepEqual(rows.map((r) => r.type), ['payment.created'], 'the late answer emitted nothing');
  });
});
