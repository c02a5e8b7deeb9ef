// The Checkout.com connector on the official checkout-sdk-node, pointed at the local Checkout.com
// stand-in with api_base_url: what each call sends (JSON bodies, amounts, Cko-Idempotency-Keys),
// how Checkout.com's answers become the connector interface's outcomes and failures (the tables
// of checkout/errors.ts), the status query by our reference, and how its signed webhooks are read.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createCheckoutConnector } from '../services/connectors/checkout/connector.js';
import { checkoutSignature } from '../services/connectors/checkout/notifications.js';
import type { AuthorizeRequest, Connector, CredentialSource, NotificationRequest } from '../services/connectors/index.js';
import { sandboxKey, signedEvent, startCheckoutStandIn, type CheckoutStandIn } from './helpers/checkout-stand-in.js';
import { attemptAt, authorizeLosingAnswer, callSignal, holdOf, refundOf } from './helpers/connector-requests.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';

const KEY = sandboxKey();
const CHANNEL = 'pc_standin000000000000000000';
const SIGNATURE_KEY = randomBytes(32).toString('hex');
const show = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

describe('the Checkout.com connector against the Checkout.com stand-in', () => {
  let cko: CheckoutStandIn;
  let connector: Connector;

  before(async () => {
    cko = await startCheckoutStandIn({ secretKeys: [KEY] });
    const values = (over: Record<string, string> = {}) => ({
      secret_key: KEY, processing_channel_id: CHANNEL, webhook_signature_key: SIGNATURE_KEY, api_base_url: cko.baseUrl, ...over,
    });
    const credentials: CredentialSource = {
      async get(id) {
        if (id === 'pac_cko_good') return { mode: 'test', values: values() };
        if (id === 'pac_cko_bad') return { mode: 'test', values: values({ secret_key: sandboxKey() }) };
        return undefined;
      },
    };
    connector = createCheckoutConnector({ credentials, network: { allowlist: [STAND_IN_ORIGINS] } });
  });
  after(() => cko?.close());

  const ACCOUNT = { providerCode: 'checkout', id: 'pac_cko_good', feeFixed: 10n, feeBps: 120, latencyMs: 0 };
  const pay = (over: Partial<AuthorizeRequest> = {}) => attemptAt(ACCOUNT, 'tok_4gzeau5o2uqubbk6fufs3m7p54', over);
  const sentFor = (key: string) => cko.requests.filter((r) => r.headers['cko-idempotency-key'] === key);

  test('authorize: POST /payments as JSON with the secret key, keyed and referenced by the attempt id', async () => {
    const req = pay();
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'success', show(r));
    assert.match(r.providerPaymentId!, /^pay_standin/);
    assert.equal(r.providerCode, '10000');
    assert.equal(r.fee, 10n + 30n); // the account's pricing: 10 + 2500 × 1.2 %
    const [sent] = sentFor(req.attemptId);
    assert.equal(sent.path, '/payments');
    assert.equal(sent.headers.authorization, `Bearer ${KEY}`, 'the SDK sends a current-platform key as a bearer token');
    assert.match(String(sent.headers['content-type']), /^application\/json/);
    assert.deepEqual(sent.body, {
      source: { type: 'token', token: 'tok_4gzeau5o2uqubbk6fufs3m7p54' }, amount: 2500, currency: 'EUR', reference: req.attemptId,
      capture: true, payment_type: 'Regular', processing_channel_id: CHANNEL,
      metadata: { payment_id: req.paymentId, attempt_id: req.attemptId },
    });
  });

  test('amounts in Checkout.com\'s units (5 ISK is 5, 1.500 KWD is 1500); a stored instrument is an id source; junk is refused unsent', async () => {
    const isk = pay({ amount: 5n, currency: 'ISK', paymentMethodToken: 'src_nwd3m4in3hkuddfpjsaevunhdy' });
    assert.equal((await connector.authorize(isk)).outcome, 'success');
    const [sent] = sentFor(isk.attemptId);
    assert.equal(sent.body.amount, 5);
    assert.deepEqual(sent.body.source, { type: 'id', id: 'src_nwd3m4in3hkuddfpjsaevunhdy' });
    const kwd = pay({ amount: 1500n, currency: 'KWD' });
    await connector.authorize(kwd);
    assert.equal(sentFor(kwd.attemptId)[0].body.amount, 1500);
    const junk = pay({ paymentMethodToken: 'pm_card_visa' });
    const r = await connector.authorize(junk);
    assert.equal(r.outcome, 'technical_error');
    assert.equal(r.failure?.code, 'payment_method_unknown');
    assert.equal(sentFor(junk.attemptId).length, 0);
  });

  test('declines follow the table by response_code: 20005 soft (failover), 20051 and 30xxx hard (final)', async () => {
    const soft = await connector.authorize(pay({ paymentMethodToken: 'tok_standin_declined_20005' }));
    assert.equal(soft.outcome, 'soft_decline');
    assert.equal(soft.providerCode, '20005');
    assert.deepEqual(soft.failure, { category: 'soft', code: 'card_declined', message: 'The card was declined by its issuer (do not honour).', declineReason: 'do_not_honor' });
    const funds = await connector.authorize(pay({ paymentMethodToken: 'tok_standin_declined_20051' }));
    assert.equal(funds.outcome, 'hard_decline');
    assert.deepEqual(funds.failure, { category: 'hard', code: 'insufficient_funds', message: 'The card has insufficient funds.', declineReason: 'insufficient_funds' });
    const stolen = await connector.authorize(pay({ paymentMethodToken: 'tok_standin_declined_30043' }));
    assert.equal(stolen.failure?.code, 'card_lost_or_stolen');
    // An unlisted 30xxx is still a hard decline: the card must not be tried elsewhere.
    const unlisted = await connector.authorize(pay({ paymentMethodToken: 'tok_standin_declined_30099' }));
    assert.equal(unlisted.outcome, 'hard_decline');
    const invalid = await connector.authorize(pay({ paymentMethodToken: 'tok_standin_invalid' }));
    assert.equal(invalid.outcome, 'technical_error');
    assert.equal(invalid.providerCode, 'token_invalid');
    // A 500 is indeterminate: the outcome stays open rather than failing over.
    const broken = await connector.authorize(pay({ paymentMethodToken: 'tok_standin_server_error' }));
    assert.equal(broken.outcome, 'unknown');
    assert.equal(broken.providerCode, '500');
  });

  test('manual capture: capture false, then a partial capture keyed by the operation id; a void of another hold', async () => {
    const req = pay({ captureMethod: 'manual' });
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'success');
    assert.equal(sentFor(req.attemptId)[0].body.capture, false);
    const capture = holdOf(req, r.providerPaymentId!, 'capture', 1500n);
    const c = await connector.capture!(capture);
    assert.deepEqual(c, { outcome: 'success', providerCode: 'accepted', providerMessage: 'Accepted by Checkout.com; its webhook confirms the outcome' });
    // A repeat (a lost answer) is answered from Checkout.com's idempotency store, not captured again.
    assert.equal((await connector.capture!({ ...capture, signal: callSignal() })).outcome, 'success');
    const calls = sentFor(capture.operationId);
    assert.equal(calls.length, 2);
    assert.equal(calls[0].path, `/payments/${r.providerPaymentId}/captures`);
    assert.deepEqual(calls[0].body, { amount: 1500, reference: capture.operationId });
    assert.equal(cko.payments.get(r.providerPaymentId!)!.captured, 1500);

    const held = pay({ captureMethod: 'manual' });
    const h = await connector.authorize(held);
    const voided = holdOf(held, h.providerPaymentId!, 'cancel');
    assert.equal((await connector.cancel!(voided)).outcome, 'success');
    const [v] = sentFor(voided.operationId);
    assert.equal(v.path, `/payments/${h.providerPaymentId}/voids`);
    assert.deepEqual(v.body, { reference: voided.operationId });
    assert.equal(cko.payments.get(h.providerPaymentId!)!.status, 'Voided');
    // Checkout.com refusing an action (an unknown payment: 404) is a decline of it, nothing changed.
    const unknown = await connector.cancel!(holdOf(held, 'pay_nosuchpayment', 'cancel_again'));
    assert.equal(unknown.outcome, 'hard_decline');
    assert.equal(unknown.providerCode, '404');
  });

  test('partial refunds: by payment id, the refund id as key and reference; a repeat refunds once; too much is declined', async () => {
    const req = pay();
    const r = await connector.authorize(req);
    const refund = refundOf(req, r.providerPaymentId, 1000n);
    const first = await connector.refund(refund);
    assert.equal(first.outcome, 'success', show(first));
    assert.match(first.providerRefundId!, /^act_standin/);
    const again = await connector.refund({ ...refund, signal: callSignal() });
    assert.equal(again.providerRefundId, first.providerRefundId, 'the same refund, answered again');
    assert.equal(cko.payments.get(r.providerPaymentId!)!.refunded, 1000);
    const [sent] = sentFor(refund.refundId);
    assert.equal(sent.path, `/payments/${r.providerPaymentId}/refunds`);
    assert.deepEqual(sent.body, { amount: 1000, reference: refund.refundId, metadata: { refund_id: refund.refundId } });
    const second = await connector.refund(refundOf(req, r.providerPaymentId, 1000n));
    assert.equal(second.outcome, 'success');
    const tooMuch = await connector.refund(refundOf(req, r.providerPaymentId, 1000n));
    assert.equal(tooMuch.outcome, 'hard_decline');
    assert.equal(tooMuch.providerCode, 'refund_amount_exceeds_balance');
    assert.equal(cko.payments.get(r.providerPaymentId!)!.refunded, 2000);
  });

  test('a time-out is answered by the status query by our reference, and charges once', async () => {
    const req = pay({ paymentMethodToken: 'tok_standin_slow' });
    const lost = await authorizeLosingAnswer(connector, cko, req);
    // Listed at once by reference while its answer is held back: the list says it is authorized.
    const early = await connector.getStatus({ ...req, signal: callSignal() });
    assert.ok(early.found && early.outcome === 'success', show(early));
    await lost.answered();
    const made = [...cko.payments.values()].filter((p) => p.reference === req.attemptId);
    assert.equal(made.length, 1, 'one payment for the attempt');
    assert.equal(early.providerPaymentId, made[0].id);
    const listed = cko.requests.filter((r) => r.method === 'GET' && r.query.get('reference') === req.attemptId);
    assert.ok(listed.length >= 1);
    // Without the token (reconciliation) the list still answers.
    const blind = await connector.getStatus({ ...req, paymentMethodToken: undefined, signal: callSignal() });
    assert.ok(blind.found && blind.outcome === 'success');
  });

  test('the status query of an attempt Checkout.com never received: sent again under its key with the token, open without', async () => {
    const req = pay();
    const blind = await connector.getStatus({ ...req, paymentMethodToken: undefined });
    assert.ok(blind.found && blind.outcome === 'unknown', show(blind));
    assert.equal(blind.failure?.code, 'provider_unknown_outcome');
    const status = await connector.getStatus({ ...req, signal: callSignal() });
    assert.ok(status.found && status.outcome === 'success', show(status));
    assert.equal(sentFor(req.attemptId).length, 1, 'sent once, under the attempt id');
    assert.equal((await connector.getStatus({ ...req, signal: callSignal() })).found, true);
    assert.equal([...cko.payments.values()].filter((p) => p.reference === req.attemptId).length, 1);
  });

  test('3-D Secure: 202 Pending sends the customer to the redirect link; without a return URL none is asked (20154, soft)', async () => {
    const req = pay({ paymentMethodToken: 'tok_standin_3ds', returnUrl: 'https://shop.example/back?o=42' });
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'requires_action', show(r));
    assert.equal(r.customerAction?.type, 'redirect');
    assert.equal(r.customerAction?.url, `${cko.baseUrl}/3ds/${r.providerPaymentId}`);
    assert.equal(r.fee, 0n);
    const [sent] = sentFor(req.attemptId);
    assert.deepEqual(sent.body['3ds'], { enabled: true });
    assert.equal(sent.body.success_url, 'https://shop.example/back?o=42');
    assert.equal(sent.body.failure_url, 'https://shop.example/back?o=42');
    const noPage = await connector.authorize(pay({ paymentMethodToken: 'tok_standin_3ds' }));
    assert.equal(noPage.outcome, 'soft_decline');
    assert.equal(noPage.failure?.code, 'authentication_required');
  });

  test('checkCredentials: the payment list answers for a good key; a bad key or none says why', async () => {
    assert.deepEqual(await connector.checkCredentials!({ providerCode: 'checkout', id: 'pac_cko_good' }), { ok: true });
    const last = cko.requests.at(-1)!;
    assert.equal(last.method, 'GET');
    assert.equal(last.path, '/payments');
    assert.equal(last.query.get('reference'), 'svc-credential-check');
    const bad = await connector.checkCredentials!({ providerCode: 'checkout', id: 'pac_cko_bad' });
    assert.ok(!bad.ok && bad.providerCode === '401', show(bad));
    assert.equal((await connector.checkCredentials!({ providerCode: 'checkout', id: 'pac_none' })).ok, false);
    const refused = await connector.authorize(pay({ account: { ...ACCOUNT, id: 'pac_cko_bad' } }));
    assert.equal(refused.outcome, 'technical_error');
    assert.equal(refused.failure?.code, 'provider_auth_failed');
    assert.equal((await connector.authorize(pay({ account: { ...ACCOUNT, id: 'pac_none' } }))).outcome, 'provider_unavailable');
  });

  describe('readNotification', () => {
    const note = (d: { body: string; headers: Record<string, string> }, account = 'pac_cko_good'): NotificationRequest => ({
      account: { providerCode: 'checkout', id: account }, rawBody: Buffer.from(d.body), headers: d.headers,
    });

    test('events verified by Cko-Signature and normalised, keyed by the event id', async () => {
      const approved = signedEvent('payment_approved', { id: 'pay_x', reference: 'att_x', response_code: '10000', metadata: { attempt_id: 'att_x' } }, SIGNATURE_KEY);
      const check = await connector.readNotification!(note(approved));
      assert.ok(check.ok, show(check));
      assert.equal(check.notifications[0].eventId, approved.eventId);
      assert.deepEqual(check.notifications[0].subject, {
        kind: 'payment', attemptId: 'att_x', providerPaymentId: 'pay_x',
        result: { outcome: 'success', providerPaymentId: 'pay_x', providerCode: '10000', providerMessage: 'Approved', fee: 0n },
      });
      const subject = async (type: string, data: Record<string, unknown>) => {
        const c = await connector.readNotification!(note(signedEvent(type, data, SIGNATURE_KEY)));
        assert.ok(c.ok);
        return c.notifications[0].subject;
      };
      const declined = await subject('payment_declined', { id: 'pay_y', reference: 'att_y', response_code: '20051', response_summary: 'Insufficient Funds' });
      assert.ok(declined.kind === 'payment' && declined.result.outcome === 'hard_decline');
      assert.equal(declined.result.failure?.code, 'insufficient_funds');
      const captured = await subject('payment_captured', { id: 'pay_x', action_id: 'act_1', reference: 'att_x_capture' });
      assert.ok(captured.kind === 'capture' && captured.providerPaymentId === 'pay_x' && captured.result.outcome === 'success');
      const voided = await subject('payment_void_declined', { id: 'pay_x', action_id: 'act_2' });
      assert.ok(voided.kind === 'cancel' && voided.result.outcome === 'hard_decline');
      const refunded = await subject('payment_refunded', { id: 'pay_x', action_id: 'act_3', reference: 'rf_1' });
      assert.ok(refunded.kind === 'refund' && refunded.refundId === 'rf_1' && refunded.providerRefundId === 'act_3');
      assert.equal(refunded.result.outcome, 'success');
      const refundDeclined = await subject('payment_refund_declined', { id: 'pay_x', action_id: 'act_4', reference: 'rf_2' });
      assert.ok(refundDeclined.kind === 'refund' && refundDeclined.result.outcome === 'hard_decline');
      const expired = await subject('payment_expired', { id: 'pay_z', reference: 'att_z' });
      assert.ok(expired.kind === 'payment' && expired.result.failure?.code === 'payment_cancelled');
      assert.deepEqual(await subject('payment_pending', { id: 'pay_x' }), { kind: 'ignored' });
    });

    test('forged, altered, unsigned or unreadable deliveries are refused, never quoting the key', async () => {
      const good = signedEvent('payment_approved', { id: 'pay_x', reference: 'att_x' }, SIGNATURE_KEY);
      const forged = signedEvent('payment_approved', { id: 'pay_x', reference: 'att_x' }, randomBytes(32).toString('hex'));
      const f = await connector.readNotification!(note(forged));
      assert.ok(!f.ok && /does not verify/.test(f.reason));
      assert.ok(!f.ok && !f.reason.includes(SIGNATURE_KEY) && !f.reason.includes(forged.headers['cko-signature']));
      const altered = { ...good, body: good.body.replace('pay_x', 'pay_w') };
      assert.equal((await connector.readNotification!(note(altered))).ok, false);
      assert.equal((await connector.readNotification!(note({ ...good, headers: { 'content-type': 'application/json' } }))).ok, false);
      assert.equal((await connector.readNotification!(note({ ...good, headers: { 'cko-signature': 'zz' } }))).ok, false);
      const notJson = 'not json';
      assert.equal((await connector.readNotification!(note({ body: notJson, headers: { 'cko-signature': checkoutSignature(notJson, SIGNATURE_KEY) } }))).ok, false);
      assert.equal((await connector.readNotification!(note(good, 'pac_none'))).ok, false);
      // Uppercase hex is the same signature.
      assert.equal((await connector.readNotification!(note({ ...good, headers: { 'cko-signature': good.headers['cko-signature'].toUpperCase() } }))).ok, true);
    });
  });
});
