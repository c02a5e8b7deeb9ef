// The Stripe connector on the official SDK, pointed at the local Stripe stand-in with api_base_url:
// what each call sends (form fields, encodings, Idempotency-Keys) and how Stripe's answers become
// the connector interface's outcomes and failures (the table of stripe/errors.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createStripeConnector } from '../services/connectors/stripe/connector.js';
import type { AuthorizeRequest, Connector, CredentialSource } from '../services/connectors/index.js';
import { newId } from '../services/platform/ids.js';
import { attemptAt, authorizeLosingAnswer, callSignal, holdOf, refundOf, sentUnder } from './helpers/connector-requests.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';

const KEY = `sk_test_standin_${Date.now()}`;

describe('the Stripe connector against the Stripe stand-in', () => {
  let stripe: StripeStandIn;
  let connector: Connector;

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [KEY] });
    const values = (secret: string) => ({ secret_key: secret, webhook_secret: 'whsec_test', api_base_url: stripe.baseUrl });
    const credentials: CredentialSource = {
      async get(id) {
        if (id === 'pac_stripe_good') return { mode: 'test', values: values(KEY) };
        if (id === 'pac_stripe_bad') return { mode: 'test', values: values('sk_test_wrong') };
        return undefined;
      },
    };
    connector = createStripeConnector({ credentials, network: { allowlist: [STAND_IN_ORIGINS] } });
  });
  after(() => stripe?.close());

  const ACCOUNT = { providerCode: 'stripe', id: 'pac_stripe_good', feeFixed: 25n, feeBps: 140, latencyMs: 0 };
  const pay = (over: Partial<AuthorizeRequest> = {}) => attemptAt(ACCOUNT, 'pm_card_visa', over);
  const sentFor = (key: string) => sentUnder(stripe.requests, key);

  test('authorize: a PaymentIntent confirmed at once, form-encoded, keyed by the attempt id', async () => {
    const req = pay();
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'success');
    assert.match(r.providerPaymentId!, /^pi_/);
    assert.equal(r.fee, 25n + 35n); // the account's pricing: 25 + 2500 × 1.4 %
    // From the expanded charge's payment_method_details.card; Stripe gives no BIN (iin) to most accounts.
    assert.deepEqual(r.card, { network: 'visa', binRange: null });
    const [sent] = sentFor(req.attemptId);
    assert.equal(sent.method, 'POST');
    assert.equal(sent.path, '/v1/payment_intents');
    assert.equal(sent.headers.authorization, `Bearer ${KEY}`);
    assert.match(String(sent.headers['content-type']), /^application\/x-www-form-urlencoded/);
    assert.ok(sent.headers['stripe-version'], 'the SDK pins its API version');
    assert.ok(sent.body.includes(`metadata[attempt_id]=${req.attemptId}`) || sent.body.includes(`metadata%5Battempt_id%5D=${req.attemptId}`));
    assert.deepEqual(sent.params, {
      amount: '2500', currency: 'eur', confirm: 'true', capture_method: 'automatic', payment_method: 'pm_card_visa',
      metadata: { payment_id: req.paymentId, attempt_id: req.attemptId }, expand: ['latest_charge'],
      // No return_url: Stripe must fail a 3-D Secure payment instead of waiting for a page nobody returns from.
      error_on_requires_action: 'true', automatic_payment_methods: { enabled: 'true', allow_redirects: 'never' },
    });
  });

  test('authorize: amounts as Stripe expects them (5 ISK is 500, 500 JPY is 500)', async () => {
    const isk = pay({ amount: 5n, currency: 'ISK' });
    assert.equal((await connector.authorize(isk)).outcome, 'success');
    assert.equal(sentFor(isk.attemptId)[0].params.amount, '500');
    const jpy = pay({ amount: 500n, currency: 'JPY' });
    await connector.authorize(jpy);
    assert.equal(sentFor(jpy.attemptId)[0].params.amount, '500');
    // Three decimals must end in 0 at Stripe: refused, never rounded, and nothing is sent.
    const kwd = pay({ amount: 5125n, currency: 'KWD' });
    const r = await connector.authorize(kwd);
    assert.equal(r.outcome, 'soft_decline');
    assert.deepEqual(r.failure, { category: 'policy', code: 'amount_not_supported', message: 'Stripe cannot carry this amount exactly in this currency.', declineReason: 'invalid_amount' });
    assert.equal(sentFor(kwd.attemptId).length, 0);
  });

  test('manual capture: the funds are held, then partly captured once under the operation id', async () => {
    const req = pay({ captureMethod: 'manual' });
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'success');
    assert.equal(r.providerCode, 'requires_capture');
    assert.equal(sentFor(req.attemptId)[0].params.capture_method, 'manual');
    const capture = holdOf(req, r.providerPaymentId!, 'capture', 1500n);
    assert.equal((await connector.capture!(capture)).outcome, 'success');
    // A repeat (a lost answer) is answered from Stripe's idempotency store, not captured again.
    assert.equal((await connector.capture!({ ...capture, signal: callSignal() })).outcome, 'success');
    const sent = sentFor(capture.operationId);
    assert.equal(sent.length, 2);
    assert.equal(sent[0].path, `/v1/payment_intents/${r.providerPaymentId}/capture`);
    assert.deepEqual(sent[0].params, { amount_to_capture: '1500' });
    assert.equal(stripe.intents.get(r.providerPaymentId!)!.amount_received, 1500);
    // Releasing a captured payment is refused by Stripe: a decline, not a success.
    const release = await connector.cancel!(holdOf(req, r.providerPaymentId!, 'cancel'));
    assert.equal(release.outcome, 'hard_decline');
    assert.equal(release.providerCode, 'payment_intent_unexpected_state');
  });

  test('cancel: a hold is released under the operation id, and cannot be captured afterwards', async () => {
    const req = pay({ captureMethod: 'manual' });
    const r = await connector.authorize(req);
    const cancel = holdOf(req, r.providerPaymentId!, 'cancel');
    assert.equal((await connector.cancel!(cancel)).outcome, 'success');
    assert.equal(sentFor(cancel.operationId)[0].path, `/v1/payment_intents/${r.providerPaymentId}/cancel`);
    assert.equal(stripe.intents.get(r.providerPaymentId!)!.status, 'canceled');
    assert.equal((await connector.capture!(holdOf(req, r.providerPaymentId!, 'capture'))).outcome, 'hard_decline');
  });

  test('refund: partial, keyed by the refund id, answered once however often it is sent', async () => {
    const req = pay();
    const r = await connector.authorize(req);
    const refund = refundOf(req, r.providerPaymentId, 1000n);
    const { refundId } = refund;
    const first = await connector.refund(refund);
    assert.equal(first.outcome, 'success');
    assert.match(first.providerRefundId!, /^re_/);
    const again = await connector.refund({ ...refund, signal: callSignal() });
    assert.equal(again.providerRefundId, first.providerRefundId);
    assert.equal([...stripe.refunds.values()].filter((x) => x.payment_intent === r.providerPaymentId).length, 1);
    const [sent] = sentFor(refundId);
    assert.equal(sent.path, '/v1/refunds');
    assert.deepEqual(sent.params, {
      payment_intent: r.providerPaymentId, amount: '1000',
      metadata: { refund_id: refundId, payment_id: req.paymentId, reason: 'customer asked' },
    });
    // More than the rest: Stripe refuses, a hard decline of the refund.
    const over = await connector.refund({ ...refund, refundId: newId('rf'), amount: 2000n, signal: callSignal() });
    assert.equal(over.outcome, 'hard_decline');
  });

  test('declines follow the table: generic_decline is soft (failover), insufficient_funds hard (final)', async () => {
    const soft = await connector.authorize(pay({ paymentMethodToken: 'pm_card_chargeDeclined' }));
    assert.equal(soft.outcome, 'soft_decline');
    assert.equal(soft.providerCode, 'generic_decline');
    assert.deepEqual(soft.card, { network: 'visa', binRange: null }, 'from the card error\'s payment_method');
    assert.match(soft.providerPaymentId!, /^pi_/);
    assert.deepEqual(soft.failure, { category: 'soft', code: 'card_declined', message: 'The card was declined by its issuer without a reason.', declineReason: 'generic_decline' });
    const hard = await connector.authorize(pay({ paymentMethodToken: 'pm_card_chargeDeclinedInsufficientFunds' }));
    assert.equal(hard.outcome, 'hard_decline');
    assert.equal(hard.providerCode, 'insufficient_funds');
    assert.deepEqual(hard.failure, { category: 'hard', code: 'insufficient_funds', message: 'The card has insufficient funds.', declineReason: 'insufficient_funds' });
    // A 500 is indeterminate at Stripe: the outcome stays open rather than failing over.
    const broken = await connector.authorize(pay({ paymentMethodToken: 'pm_standin_serverError' }));
    assert.equal(broken.outcome, 'unknown');
    assert.equal(broken.failure?.code, 'provider_unknown_outcome');
  });

  test('a time-out is answered by the status query with the same key, and charges once', async () => {
    const req = pay({ paymentMethodToken: 'pm_standin_slowAnswer' });
    const lost = await authorizeLosingAnswer(connector, stripe, req);
    // Stripe is still at the first request: 409 idempotency_key_in_use, an open answer.
    const early = await connector.getStatus({ ...req, signal: callSignal() });
    assert.ok(early.found && early.outcome === 'unknown');
    await lost.answered();
    const status = await connector.getStatus({ ...req, signal: callSignal() });
    assert.ok(status.found);
    assert.equal(status.outcome, 'success');
    const made = [...stripe.intents.values()].filter((pi) => (pi.metadata as Record<string, string>).attempt_id === req.attemptId);
    assert.equal(made.length, 1, 'one PaymentIntent for the attempt');
    assert.equal(status.providerPaymentId, made[0].id);
    assert.ok(sentFor(req.attemptId).every((s) => s.path === '/v1/payment_intents'));
    // Without the token (reconciliation) the PaymentIntent is found by its metadata.
    const searched = await connector.getStatus({ ...req, paymentMethodToken: undefined, signal: callSignal() });
    assert.ok(searched.found && searched.outcome === 'success' && searched.providerPaymentId === made[0].id);
    // An attempt Stripe never received: unknown while search may lag, not found once it cannot.
    const fresh = await connector.getStatus(pay({ paymentMethodToken: undefined }));
    assert.ok(fresh.found && fresh.outcome === 'unknown');
    const old = await connector.getStatus(pay({ attemptId: newId('att', new Date(Date.now() - 2 * 3_600_000)), paymentMethodToken: undefined }));
    assert.deepEqual(old, { found: false });
  });

  test('requires_action: 3-D Secure redirects to Stripe\'s page with the merchant\'s return_url', async () => {
    const req = pay({ paymentMethodToken: 'pm_card_authenticationRequired', returnUrl: 'https://shop.example/back?o=42' });
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'requires_action');
    assert.equal(r.customerAction?.type, 'redirect');
    assert.equal(r.customerAction?.url, `${stripe.baseUrl}/3ds/${r.providerPaymentId}`);
    assert.equal(r.fee, 0n);
    const [sent] = sentFor(req.attemptId);
    assert.equal(sent.params.return_url, 'https://shop.example/back?o=42');
    assert.equal(sent.params.error_on_requires_action, undefined);
    // Without a return_url Stripe fails it as authentication_required: soft, another provider may exempt it.
    const noPage = await connector.authorize(pay({ paymentMethodToken: 'pm_card_authenticationRequired' }));
    assert.equal(noPage.outcome, 'soft_decline');
    assert.equal(noPage.failure?.code, 'authentication_required');
  });

  test('checkCredentials: the balance answers for a good key; a bad or missing key says why', async () => {
    assert.deepEqual(await connector.checkCredentials!({ providerCode: 'stripe', id: 'pac_stripe_good' }), { ok: true });
    assert.equal(stripe.requests.at(-1)!.path, '/v1/balance');
    const bad = await connector.checkCredentials!({ providerCode: 'stripe', id: 'pac_stripe_bad' });
    assert.ok(!bad.ok && /Invalid API Key/.test(bad.message), JSON.stringify(bad));
    assert.equal((await connector.checkCredentials!({ providerCode: 'stripe', id: 'pac_none' })).ok, false);
    // An attempt at an account whose key Stripe refuses is a technical failure: the next provider is tried.
    const refused = await connector.authorize(pay({ account: { ...pay().account, id: 'pac_stripe_bad' } }));
    assert.equal(refused.outcome, 'technical_error');
    assert.equal(refused.failure?.code, 'provider_auth_failed');
    const none = await connector.authorize(pay({ account: { ...pay().account, id: 'pac_none' } }));
    assert.equal(none.outcome, 'provider_unavailable');
  });

  test('the same attempt id with other parameters is Stripe\'s idempotency_error: an open outcome, never a second charge', async () => {
    const req = pay();
    await connector.authorize(req);
    const other = await connector.authorize({ ...req, amount: 9900n, signal: callSignal() });
    assert.equal(other.outcome, 'unknown');
    assert.equal(other.providerCode, 'StripeIdempotencyError');
  });
});
