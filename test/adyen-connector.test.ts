// The Adyen connector on the official @adyen/api-library, pointed at the local Adyen stand-in with
// api_base_url: what each call sends (JSON fields, amounts, Idempotency-Keys), how Adyen's answers
// become the connector interface's outcomes and failures (the tables of adyen/errors.ts), and how
// its HMAC-signed notifications are read.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createAdyenConnector } from '../services/connectors/adyen/connector.js';
import type { AuthorizeRequest, Connector, CredentialSource, NotificationRequest } from '../services/connectors/index.js';
import { signedNotification, startAdyenStandIn, type AdyenStandIn } from './helpers/adyen-stand-in.js';
import { attemptAt, authorizeLosingAnswer, callSignal, holdOf, refundOf, sentUnder } from './helpers/connector-requests.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';

const KEY = `AQE_standin_${Date.now()}`;
const MERCHANT = 'AcmeECOM';
const HMAC = randomBytes(32).toString('hex').toUpperCase();
const show = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

describe('the Adyen connector against the Adyen stand-in', () => {
  let adyen: AdyenStandIn;
  let connector: Connector;

  before(async () => {
    adyen = await startAdyenStandIn({ apiKeys: [KEY], merchantAccounts: [MERCHANT] });
    const values = (over: Record<string, string> = {}) => ({
      api_key: KEY, merchant_account: MERCHANT, hmac_key: HMAC, api_base_url: adyen.baseUrl, ...over,
    });
    const credentials: CredentialSource = {
      async get(id) {
        if (id === 'pac_adyen_good') return { mode: 'test', values: values() };
        if (id === 'pac_adyen_live') return { mode: 'live', values: values({ live_url_prefix: '1797a841fbb37ca7-AcmeECOM' }) };
        if (id === 'pac_adyen_bad') return { mode: 'test', values: values({ api_key: 'AQE_wrong' }) };
        if (id === 'pac_adyen_other') return { mode: 'test', values: values({ merchant_account: 'NotOurs' }) };
        if (id === 'pac_adyen_basic') return { mode: 'test', values: values({ basic_auth_user: 'adyen', basic_auth_password: 's3cret' }) };
        return undefined;
      },
    };
    connector = createAdyenConnector({ credentials, network: { allowlist: [STAND_IN_ORIGINS] } });
  });
  after(() => adyen?.close());

  const ACCOUNT = { providerCode: 'adyen', id: 'pac_adyen_good', feeFixed: 10n, feeBps: 120, latencyMs: 0 };
  const pay = (over: Partial<AuthorizeRequest> = {}) => attemptAt(ACCOUNT, 'shopper_42:8415736344108917', over);
  const sentFor = (key: string) => sentUnder(adyen.requests, key);

  test('authorize: POST /payments as JSON with the API key, keyed and referenced by the attempt id', async () => {
    const req = pay();
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'success', show(r));
    assert.match(r.providerPaymentId!, /^STANDIN/);
    assert.equal(r.fee, 10n + 30n); // the account's pricing: 10 + 2500 × 1.2 %
    // paymentMethod.brand mc is Mastercard; additionalData.cardBin gives the BIN range.
    assert.deepEqual(r.card, { network: 'mastercard', binRange: '555544' });
    const [sent] = sentFor(req.attemptId);
    assert.equal(sent.path, '/payments');
    assert.equal(sent.version, 'v72', 'the library pins its Checkout API version');
    assert.equal(sent.headers['x-api-key'], KEY);
    assert.match(String(sent.headers['content-type']), /^application\/json/);
    assert.deepEqual(sent.body, {
      amount: { currency: 'EUR', value: 2500 }, merchantAccount: MERCHANT, reference: req.attemptId,
      paymentMethod: { type: 'scheme', storedPaymentMethodId: '8415736344108917' }, shopperReference: 'shopper_42',
      shopperInteraction: 'ContAuth', recurringProcessingModel: 'CardOnFile', metadata: { payment_id: req.paymentId },
      captureDelayHours: 0,
      // No return URL: Adyen must not start 3-D Secure nobody could come back from.
      authenticationData: { attemptAuthentication: 'never' },
    });
  });

  test('authorize: Components\' card data as the token, and amounts in Adyen\'s minor units (5 ISK is 500, 500 CLP is 50000)', async () => {
    const card = JSON.stringify({ type: 'scheme', encryptedCardNumber: 'adyenjs_0_1_25$abc', encryptedSecurityCode: 'adyenjs_0_1_25$def' });
    const isk = pay({ amount: 5n, currency: 'ISK', paymentMethodToken: card });
    assert.equal((await connector.authorize(isk)).outcome, 'success');
    const [sent] = sentFor(isk.attemptId);
    assert.deepEqual(sent.body.amount, { currency: 'ISK', value: 500 });
    assert.deepEqual(sent.body.paymentMethod, JSON.parse(card));
    assert.equal(sent.body.shopperInteraction, undefined);
    const clp = pay({ amount: 500n, currency: 'CLP' });
    await connector.authorize(clp);
    assert.deepEqual(sentFor(clp.attemptId)[0].body.amount, { currency: 'CLP', value: 50000 });
    const idr = pay({ amount: 15000n, currency: 'IDR' });
    await connector.authorize(idr);
    assert.deepEqual(sentFor(idr.attemptId)[0].body.amount, { currency: 'IDR', value: 15000 });
    // A token that is neither Components' data nor a stored id is refused before anything is sent.
    const junk = pay({ paymentMethodToken: '{"not":"a method"}' });
    const r = await connector.authorize(junk);
    assert.equal(r.outcome, 'technical_error');
    assert.equal(r.failure?.code, 'payment_method_unknown');
    assert.equal(sentFor(junk.attemptId).length, 0);
  });

  test('refusals follow the table by refusalReasonCode: 2 is soft (failover), 12 and 24 hard (final)', async () => {
    const soft = await connector.authorize(pay({ paymentMethodToken: 'standin_refused_2' }));
    assert.equal(soft.outcome, 'soft_decline');
    assert.equal(soft.providerCode, 'Refused:2');
    assert.deepEqual(soft.card, { network: 'mastercard', binRange: '555544' }, 'a refusal names the card too');
    assert.deepEqual(soft.failure, { category: 'soft', code: 'card_declined', message: 'The card was declined by its issuer without a reason.', declineReason: 'generic_decline' });
    const hard = await connector.authorize(pay({ paymentMethodToken: 'standin_refused_12' }));
    assert.equal(hard.outcome, 'hard_decline');
    assert.deepEqual(hard.failure, { category: 'hard', code: 'insufficient_funds', message: 'The card has insufficient funds.', declineReason: 'insufficient_funds' });
    // Adyen's test convention: the holder name names the refusal.
    const cvc = await connector.authorize(pay({ paymentMethodToken: JSON.stringify({ type: 'scheme', encryptedCardNumber: 'x', holderName: 'CVC Declined' }) }));
    assert.equal(cvc.providerCode, 'Refused:24');
    assert.equal(cvc.failure?.code, 'invalid_card_details');
    const error = await connector.authorize(pay({ paymentMethodToken: 'standin_error' }));
    assert.equal(error.outcome, 'technical_error');
    assert.equal(error.failure?.code, 'provider_error');
    const pending = await connector.authorize(pay({ paymentMethodToken: 'standin_pending' }));
    assert.equal(pending.outcome, 'unknown');
    // A 500 is indeterminate: the outcome stays open rather than failing over.
    const broken = await connector.authorize(pay({ paymentMethodToken: 'standin_server_error' }));
    assert.equal(broken.outcome, 'unknown');
    assert.equal(broken.providerCode, '000');
  });

  test('manual capture: additionalData.manualCapture, then a partial capture keyed by the operation id', async () => {
    const req = pay({ captureMethod: 'manual' });
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'success');
    const sent = sentFor(req.attemptId)[0].body;
    assert.deepEqual(sent.additionalData, { manualCapture: 'true' });
    assert.equal(sent.captureDelayHours, undefined);
    const capture = holdOf(req, r.providerPaymentId!, 'capture', 1500n);
    const c = await connector.capture!(capture);
    assert.deepEqual(c, { outcome: 'success', providerCode: 'received', providerMessage: 'Received by Adyen; its notification confirms the outcome' });
    // A repeat (a lost answer) is answered from Adyen's idempotency store, not captured again.
    assert.equal((await connector.capture!({ ...capture, signal: callSignal() })).outcome, 'success');
    const calls = sentFor(capture.operationId);
    assert.equal(calls.length, 2);
    assert.equal(calls[0].path, `/payments/${r.providerPaymentId}/captures`);
    assert.deepEqual(calls[0].body, { amount: { currency: 'EUR', value: 1500 }, merchantAccount: MERCHANT, reference: capture.operationId });
    assert.equal(adyen.payments.get(r.providerPaymentId!)!.captured, 1500);
    // Adyen refusing a modification it cannot read (unknown pspReference) is a decline of it.
    const unknown = await connector.cancel!(holdOf(req, 'NOSUCHPSP', 'cancel'));
    assert.equal(unknown.outcome, 'hard_decline');
    assert.equal(unknown.providerCode, '167');
  });

  test('cancel and refund: by pspReference, the operation id and the refund id as keys and references', async () => {
    const held = pay({ captureMethod: 'manual' });
    const h = await connector.authorize(held);
    const cancel = holdOf(held, h.providerPaymentId!, 'cancel');
    assert.equal((await connector.cancel!(cancel)).outcome, 'success');
    const [c] = sentFor(cancel.operationId);
    assert.equal(c.path, `/payments/${h.providerPaymentId}/cancels`);
    assert.deepEqual(c.body, { merchantAccount: MERCHANT, reference: cancel.operationId });
    assert.equal(adyen.payments.get(h.providerPaymentId!)!.cancelled, true);

    const req = pay();
    const r = await connector.authorize(req);
    const refund = refundOf(req, r.providerPaymentId, 1000n);
    const { refundId } = refund;
    const first = await connector.refund(refund);
    assert.equal(first.outcome, 'success');
    assert.match(first.providerRefundId!, /^STANDIN/);
    const again = await connector.refund({ ...refund, signal: callSignal() });
    assert.equal(again.providerRefundId, first.providerRefundId, 'the same refund, answered again');
    assert.equal(adyen.payments.get(r.providerPaymentId!)!.refunded, 1000);
    const [sent] = sentFor(refundId);
    assert.equal(sent.path, `/payments/${r.providerPaymentId}/refunds`);
    assert.deepEqual(sent.body, { amount: { currency: 'EUR', value: 1000 }, merchantAccount: MERCHANT, reference: refundId });
  });

  test('a time-out is answered by the status query with the same key, and charges once', async () => {
    const req = pay({ paymentMethodToken: 'standin_slow' });
    const lost = await authorizeLosingAnswer(connector, adyen, req);
    // Adyen is still at the first request: 704 with Transient-Error, an open answer.
    const early = await connector.getStatus({ ...req, signal: callSignal() });
    assert.ok(early.found && early.outcome === 'unknown', show(early));
    assert.equal(early.found && early.providerCode, '704');
    await lost.answered();
    const status = await connector.getStatus({ ...req, signal: callSignal() });
    assert.ok(status.found && status.outcome === 'success', show(status));
    const made = [...adyen.payments.values()].filter((p) => p.reference === req.attemptId);
    assert.equal(made.length, 1, 'one payment for the attempt');
    assert.equal(status.providerPaymentId, made[0].pspReference);
    assert.ok(sentFor(req.attemptId).every((s) => s.path === '/payments'));
    // Without the token (reconciliation) there is no lookup: the AUTHORISATION notification decides.
    const blind = await connector.getStatus({ ...req, paymentMethodToken: undefined, signal: callSignal() });
    assert.ok(blind.found && blind.outcome === 'unknown');
    assert.equal(blind.failure?.code, 'provider_unknown_outcome');
  });

  test('3-D Secure: RedirectShopper sends the customer to the action\'s page, with the merchant\'s returnUrl', async () => {
    const req = pay({ paymentMethodToken: 'standin_3ds', returnUrl: 'https://shop.example/back?o=42' });
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'requires_action');
    assert.equal(r.customerAction?.type, 'redirect');
    assert.equal(r.customerAction?.url, `${adyen.baseUrl}/3ds/${r.providerPaymentId}`);
    assert.equal(r.fee, 0n);
    const [sent] = sentFor(req.attemptId);
    assert.equal(sent.body.returnUrl, 'https://shop.example/back?o=42');
    assert.equal(sent.body.authenticationData, undefined);
    // Without a return URL the issuer's insistence is 38 Authentication required: soft, another provider may exempt it.
    const noPage = await connector.authorize(pay({ paymentMethodToken: 'standin_3ds' }));
    assert.equal(noPage.outcome, 'soft_decline');
    assert.equal(noPage.failure?.code, 'authentication_required');
  });

  test('live mode: the live host from the prefix is replaced by api_base_url, the path keeps Adyen\'s /checkout', async () => {
    const req = pay({ account: { ...pay().account, id: 'pac_adyen_live' } });
    assert.equal((await connector.authorize(req)).outcome, 'success');
    assert.equal(sentFor(req.attemptId)[0].path, '/payments');
  });

  test('checkCredentials: /paymentMethods answers for good credentials; a bad key or merchant account says why', async () => {
    assert.deepEqual(await connector.checkCredentials!({ providerCode: 'adyen', id: 'pac_adyen_good' }), { ok: true });
    const last = adyen.requests.at(-1)!;
    assert.equal(last.path, '/paymentMethods');
    assert.deepEqual(last.body, { merchantAccount: MERCHANT });
    assert.deepEqual(await connector.checkCredentials!({ providerCode: 'adyen', id: 'pac_adyen_bad' }), {
      ok: false, providerCode: '000', message: 'HTTP Status Response - Unauthorized',
    });
    const other = await connector.checkCredentials!({ providerCode: 'adyen', id: 'pac_adyen_other' });
    assert.ok(!other.ok && other.providerCode === '901', show(other));
    assert.equal((await connector.checkCredentials!({ providerCode: 'adyen', id: 'pac_none' })).ok, false);
    // An attempt at an account whose key Adyen refuses is a technical failure: the next provider is tried.
    const refused = await connector.authorize(pay({ account: { ...pay().account, id: 'pac_adyen_bad' } }));
    assert.equal(refused.outcome, 'technical_error');
    assert.equal(refused.failure?.code, 'provider_rejected_request');
    assert.equal((await connector.authorize(pay({ account: { ...pay().account, id: 'pac_none' } }))).outcome, 'provider_unavailable');
  });

  describe('readNotification', () => {
    const note = (body: string, account = 'pac_adyen_good', headers: Record<string, string> = {}): NotificationRequest => ({
      account: { providerCode: 'adyen', id: account }, rawBody: Buffer.from(body), headers,
    });
    const item = (over: Partial<Parameters<typeof signedNotification>[1][number]> = {}) => ({
      eventCode: 'AUTHORISATION', pspReference: 'STANDIN000000901', merchantAccountCode: MERCHANT, merchantReference: 'att_x',
      amount: { value: 2500, currency: 'EUR' }, success: true, ...over,
    });

    test('a valid batch: each item verified by HMAC, normalised, keyed by pspReference, eventCode and success', async () => {
      const body = signedNotification(HMAC, [
        item(),
        item({ eventCode: 'AUTHORISATION', pspReference: 'STANDIN000000902', merchantReference: 'att_y', success: false, reason: 'Not enough balance' }),
        item({ eventCode: 'CAPTURE', pspReference: 'STANDIN000000903', originalReference: 'STANDIN000000901', merchantReference: 'att_x_capture' }),
        item({ eventCode: 'REFUND_FAILED', pspReference: 'STANDIN000000904', originalReference: 'STANDIN000000901', merchantReference: 'rf_1' }),
        item({ eventCode: 'REPORT_AVAILABLE', pspReference: 'settlement_detail_report_batch_1.csv' }),
        item({ eventCode: 'REFUNDED_REVERSED', pspReference: 'STANDIN000000904', originalReference: 'STANDIN000000901', merchantReference: 'rf_1' }),
      ]);
      const check = await connector.readNotification!(note(body));
      assert.ok(check.ok, show(check));
      assert.equal(check.acknowledgement, '[accepted]');
      const [auth, refused, capture, refundFailed, report, refundReversed] = check.notifications;
      assert.equal(auth.eventId, 'STANDIN000000901:AUTHORISATION:true');
      assert.deepEqual(auth.subject, {
        kind: 'payment', attemptId: 'att_x', providerPaymentId: 'STANDIN000000901',
        result: { outcome: 'success', providerPaymentId: 'STANDIN000000901', providerCode: 'Authorised', providerMessage: 'Authorised', fee: 0n },
      });
      assert.ok(refused.subject.kind === 'payment' && refused.subject.result.outcome === 'hard_decline');
      assert.equal(refused.subject.result.failure?.code, 'insufficient_funds');
      assert.ok(capture.subject.kind === 'capture' && capture.subject.providerPaymentId === 'STANDIN000000901');
      assert.equal(capture.subject.result.outcome, 'success');
      assert.ok(refundFailed.subject.kind === 'refund' && refundFailed.subject.refundId === 'rf_1');
      assert.equal(refundFailed.subject.result.outcome, 'hard_decline');
      assert.deepEqual(report.subject, { kind: 'ignored' });
      // A reversal is its own event (its own key) about the same refund, failing it with the reason.
      assert.equal(refundReversed.eventId, 'STANDIN000000904:REFUNDED_REVERSED:true');
      assert.ok(refundReversed.subject.kind === 'refund' && refundReversed.subject.refundId === 'rf_1');
      assert.equal(refundReversed.subject.result.outcome, 'hard_decline');
      assert.match(refundReversed.subject.result.reversalReason ?? '', /customer's bank returned the refunded funds/);
    });

    test('a replayed item has the same event id; an item for another merchant account is acknowledged and ignored', async () => {
      const body = signedNotification(HMAC, [item()]);
      const a = await connector.readNotification!(note(body));
      const b = await connector.readNotification!(note(body));
      assert.ok(a.ok && b.ok);
      assert.equal(a.notifications[0].eventId, b.notifications[0].eventId);
      const other = await connector.readNotification!(note(signedNotification(HMAC, [item({ merchantAccountCode: 'SomeoneElse' })])));
      assert.ok(other.ok);
      assert.deepEqual(other.notifications[0].subject, { kind: 'ignored' });
    });

    test('forged, unsigned, altered, wrong-mode or unreadable batches are refused', async () => {
      const forged = signedNotification(randomBytes(32).toString('hex'), [item()]);
      const f = await connector.readNotification!(note(forged));
      assert.ok(!f.ok && /HMAC signature does not verify/.test(f.reason));
      const altered = signedNotification(HMAC, [item()]).replace('"value":2500', '"value":25');
      assert.equal((await connector.readNotification!(note(altered))).ok, false);
      const unsigned = JSON.parse(signedNotification(HMAC, [item()]));
      delete unsigned.notificationItems[0].NotificationRequestItem.additionalData.hmacSignature;
      assert.equal((await connector.readNotification!(note(JSON.stringify(unsigned)))).ok, false);
      const live = await connector.readNotification!(note(signedNotification(HMAC, [item()], true)));
      assert.ok(!live.ok && /live notification/.test(live.reason));
      assert.equal((await connector.readNotification!(note('not json'))).ok, false);
      assert.equal((await connector.readNotification!(note('{"live":"false","notificationItems":[]}'))).ok, false);
      assert.equal((await connector.readNotification!(note(signedNotification(HMAC, [item()]), 'pac_none'))).ok, false);
    });

    test('basic auth, when the account stores it, must match', async () => {
      const body = signedNotification(HMAC, [item()]);
      const basic = (s: string) => ({ authorization: `Basic ${Buffer.from(s).toString('base64')}` });
      assert.equal((await connector.readNotification!(note(body, 'pac_adyen_basic'))).ok, false);
      assert.equal((await connector.readNotification!(note(body, 'pac_adyen_basic', basic('adyen:wrong')))).ok, false);
      assert.equal((await connector.readNotification!(note(body, 'pac_adyen_basic', basic('adyen:s3cret')))).ok, true);
    });
  });
});
