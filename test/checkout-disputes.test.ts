// Checkout.com's disputes through the REST gateway, with checkout-sdk-node pointed at its stand-in:
// a dispute_evidence_required webhook (Cko-Signature) opens the dispute with its amount debited;
// accept is the SDK's disputes.accept, and Checkout.com's dispute_accepted afterwards agrees; evidence
// with a PDF is uploaded (files.upload, purpose dispute_evidence), provided and submitted; a
// dispute_won gives the money back, once, however often it is delivered.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { liveKey, signedEvent, startCheckoutStandIn, type CheckoutStandIn } from './helpers/checkout-stand-in.js';
import { startLiveStandIns, type LiveStandIns } from './helpers/live-stand-ins.js';
import { deliverNotification, type NotificationDelivery } from './helpers/provider-notifications.js';
import { request } from './helpers/stack.js';

const STRIPE_KEY = `sk_live_standin_${randomBytes(8).toString('hex')}`;
const CKO_KEY = liveKey();
const SIGNATURE_KEY = randomBytes(32).toString('hex');
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(64, 0x20)]);

describe('disputes at Checkout.com, through the REST gateway', () => {
  let live: LiveStandIns<{ cko: CheckoutStandIn }>;
  let m: Awaited<ReturnType<LiveStandIns<{ cko: CheckoutStandIn }>['stack']['newMerchantKey']>> & { accountId: string };

  before(async () => {
    live = await startLiveStandIns(STRIPE_KEY, { cko: () => startCheckoutStandIn({ secretKeys: [CKO_KEY] }) });
    const merchant = await live.stack.newMerchantKey('live');
    const accountId = await live.stack.connectLive(merchant.projectId, {
      provider: 'checkout', name: 'Checkout.com EU', fee_bps: 150, fee_fixed: 10,
      credentials: { secret_key: CKO_KEY, processing_channel_id: 'pc_standinlive00000000000000', webhook_signature_key: SIGNATURE_KEY, api_base_url: live.cko.baseUrl },
    });
    m = { ...merchant, accountId };
  });
  after(async () => {
    await live?.close();
  });

  const api = (method: string, path: string, body?: unknown) => request(live.stack.baseUrl, method, path, { key: m.secret, body });
  async function send(d: NotificationDelivery) {
    const res = await deliverNotification(live.stack.baseUrl, 'checkout', m.accountId, d);
    assert.equal(res.status, 200, await res.text());
  }
  async function disputed() {
    const paid = await live.stack.pay(m.secret, { payment_method: { type: 'card', token: 'tok_standin_card', provider_code: 'checkout' } });
    assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
    const atCko = live.cko.openDispute(paid.body.attempts[0].provider_payment_id);
    const opened = signedEvent('dispute_evidence_required', live.cko.disputeEventData(atCko), SIGNATURE_KEY);
    await send(opened);
    const d = (await api('GET', `/v1/disputes?payment_id=${paid.body.id}`)).body.data[0];
    return { payment: paid.body, atCko, opened, d };
  }
  const movements = async (disputeId: string) => (await live.stack.query(
    'SELECT kind FROM payments.dispute_fund_movements WHERE dispute_id = $1 ORDER BY seq', [disputeId],
  )).rows.map((r) => r.kind);

  test('dispute_evidence_required opens it debited; accept is disputes.accept, and dispute_accepted agrees', async () => {
    const { payment, atCko, d } = await disputed();
    assert.deepEqual(
      [d.provider_dispute_id, d.amount, d.currency, d.reason, d.provider_reason, d.stage, d.status, d.funds_withdrawn, d.attempt_id],
      [atCko.id, 2500, 'EUR', 'product_not_received', 'product_service_not_received (13.1)', 'chargeback', 'needs_response', true, payment.attempts[0].id],
    );
    assert.equal(d.evidence_due_by, atCko.evidence_required_by);
    const accepted = await api('POST', `/v1/disputes/${d.id}/accept`);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual([accepted.body.status, accepted.body.funds_withdrawn], ['accepted', true]);
    assert.equal(atCko.status, 'accepted');
    assert.ok(live.cko.requests.some((r) => r.method === 'POST' && r.path === `/disputes/${atCko.id}/accept`));
    await send(signedEvent('dispute_accepted', live.cko.disputeEventData(atCko), SIGNATURE_KEY));
    assert.equal((await api('GET', `/v1/disputes/${d.id}`)).body.status, 'accepted');
    assert.deepEqual(await movements(d.id), ['withdrawal']);
  });

  test('evidence with a PDF is uploaded, provided and submitted; dispute_won credits it back once', async () => {
    const { atCko, opened, d } = await disputed();
    const doc = await api('POST', `/v1/disputes/${d.id}/documents`, { filename: 'proof.pdf', type: 'application/pdf', content: PDF.toString('base64') });
    assert.equal(doc.status, 201, JSON.stringify(doc.body));
    const submitted = await api('POST', `/v1/disputes/${d.id}/evidence`, {
      shipping_carrier: 'UPS', shipping_tracking_number: '1Z999AA10123456784', refund_policy: '30 days', documents: [doc.body.id], submit: true,
    });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    assert.equal(submitted.body.status, 'under_review');
    assert.deepEqual(live.cko.files.map((f) => [f.purpose, f.filename, f.pdf]), [['dispute_evidence', 'proof.pdf', true]]);
    assert.deepEqual(atCko.evidence, {
      proof_of_delivery_or_service_text: 'UPS, tracking 1Z999AA10123456784', refund_or_cancellation_policy_text: '30 days',
      additional_evidence_file: live.cko.files[0].id,
    });
    assert.equal(atCko.status, 'evidence_under_review');

    live.cko.decideDispute(atCko.id, 'won');
    const won = signedEvent('dispute_won', live.cko.disputeEventData(atCko), SIGNATURE_KEY);
    await send(won);
    await send(won);
    await send(opened);
    const after = (await api('GET', `/v1/disputes/${d.id}`)).body;
    assert.deepEqual([after.status, after.funds_withdrawn], ['won', false]);
    assert.deepEqual(await movements(d.id), ['withdrawal', 'reinstatement']);
  });
});
