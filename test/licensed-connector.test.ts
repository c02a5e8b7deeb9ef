// A licensed provider plugged in through the connector interface (docs/connectors.md), reached by
// live keys through the HTTP gateway: what it is sent, and how its answers move the payment.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { AuthorizeRequest, AuthorizeResult, Connector } from '../services/payments/index.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

/** A provider that approves everything and remembers each request it got. */
function recordingConnector() {
  const authorized: AuthorizeRequest[] = [];
  const approve = (req: AuthorizeRequest): AuthorizeResult => ({
    outcome: 'success', providerPaymentId: `acme_${req.attemptId}`, providerCode: '00', providerMessage: 'Approved', fee: 40n,
  });
  const connector: Connector = {
    async authorize(req) {
      authorized.push(req);
      return approve(req);
    },
    async getStatus(req) {
      return { found: true, ...approve(req) };
    },
    async refund(req) {
      return { outcome: 'success', providerRefundId: `acme_rf_${req.refundId}`, providerCode: '00', providerMessage: 'Refunded' };
    },
  };
  return { connector, authorized };
}

describe('a licensed provider connector, reached by live keys', () => {
  let stack: TestStack;
  let db: pg.Pool;
  const acme = recordingConnector();

  before(async () => {
    stack = await startTestStack({ connectors: { acme_pay: acme.connector } });
    db = new pg.Pool({ connectionString: stack.db.url, max: 2 });
    await db.query(
      `INSERT INTO routing_risk.providers (id, code, name, kind, methods) VALUES ('prv_acme', 'acme_pay', 'Acme Pay', 'licensed', '{card}')`,
    );
  });
  after(async () => {
    await db?.end();
    await stack?.close();
  });

  async function connectedLiveMerchant() {
    const m = await stack.newMerchantKey('live');
    await db.query(
      `INSERT INTO routing_risk.provider_accounts (id, provider_id, merchant_id, project_id, mode, fee_fixed, fee_bps)
       VALUES ($1, 'prv_acme', $2, $3, 'live', 25, 150)`,
      [`pac_acme_${m.projectId}`, m.merchantId, m.projectId],
    );
    return m;
  }

  const pay = (key: string, body: Record<string, unknown>) =>
    request(stack.baseUrl, 'POST', '/v1/payments', { key, body: { amount: 2500, currency: 'EUR', ...body } });

  test('a live payment goes to the connector with its amount, method token and attempt reference', async () => {
    const m = await connectedLiveMerchant();
    const res = await pay(m.secret, { payment_method: { type: 'card', token: 'tok_acme_one_off' } });
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
    const { rows } = await db.query('SELECT row_to_json(p)::text AS r FROM payments.payments p WHERE id = $1', [res.body.id]);
    assert.ok(!rows[0].r.includes('tok_acme_one_off'));
  });

  test('a stored method\'s token reaches the provider that issued it', async () => {
    const m = await connectedLiveMerchant();
    const stored = await request(stack.baseUrl, 'POST', '/v1/payment-methods', {
      key: m.secret, body: { type: 'card', provider_token: 'tok_acme_stored', provider_code: 'acme_pay' },
    });
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    const res = await pay(m.secret, { payment_method: { type: 'card', id: stored.body.id } });
    assert.equal(res.body.status, 'successful');
    const sent = acme.authorized.find((r) => r.paymentId === res.body.id)!;
    assert.equal(sent.paymentMethodToken, 'tok_acme_stored');
  });

  test('a refund of a live payment goes to the same connector', async () => {
    const m = await connectedLiveMerchant();
    const paid = await pay(m.secret, { payment_method: { type: 'card', token: 'tok_acme_refund' } });
    const refund = await request(stack.baseUrl, 'POST', `/v1/payments/${paid.body.id}/refund`, { key: m.secret, body: { amount: 1000 } });
    assert.equal(refund.status, 201);
    assert.equal(refund.body.status, 'successful');
    assert.equal(refund.body.provider_refund_id, `acme_rf_${refund.body.id}`);
  });
});
