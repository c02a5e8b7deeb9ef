// The PayPal connector on the official @paypal/paypal-server-sdk, pointed at the local PayPal
// stand-in with api_base_url: what each call sends (orders, PayPal-Request-Ids, amounts), how the
// approval is completed once whoever asks first, how PayPal's answers become outcomes and failures
// (the tables of paypal/errors.ts), the deadline, the address policy, and how its webhooks are verified.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPayPalConnector } from '../services/connectors/paypal/connector.js';
import { ISSUES } from '../services/connectors/paypal/errors.js';
import type { AuthorizeRequest, Connector, CredentialSource, NotificationRequest } from '../services/connectors/index.js';
import { attemptAt, callSignal, holdOf, refundOf } from './helpers/connector-requests.js';
import { signedEvent, startPayPalStandIn, type PayPalStandIn } from './helpers/paypal-stand-in.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';
import { newId } from '../services/platform/ids.js';

const CLIENT_ID = 'AStandInClientId0000000000000000';
const SECRET = 'EStandInSecret000000000000000000';
const WEBHOOK_ID = '8PT597110X687430LKGECATA';
const show = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

describe('the PayPal connector against the PayPal stand-in', () => {
  let pp: PayPalStandIn;
  let connector: Connector;
  let unlisted: Connector;

  before(async () => {
    pp = await startPayPalStandIn({ clients: { [CLIENT_ID]: SECRET }, webhookIds: { [CLIENT_ID]: WEBHOOK_ID } });
    const values = (over: Record<string, string> = {}) => ({
      client_id: CLIENT_ID, client_secret: SECRET, webhook_id: WEBHOOK_ID, api_base_url: pp.baseUrl, ...over,
    });
    const credentials: CredentialSource = {
      async get(id) {
        if (id === 'pac_pp_good') return { mode: 'test', values: values() };
        if (id === 'pac_pp_bad') return { mode: 'test', values: values({ client_secret: 'wrong' }) };
        return undefined;
      },
    };
    connector = createPayPalConnector({ credentials, network: { allowlist: [STAND_IN_ORIGINS] } });
    // The same account without the operator's opt-in for loopback: the address policy refuses it.
    unlisted = createPayPalConnector({ credentials, network: { allowlist: [] } });
  });
  after(() => pp?.close());

  const ACCOUNT = { providerCode: 'paypal', id: 'pac_pp_good', feeFixed: 10n, feeBps: 120, latencyMs: 0 };
  const pay = (over: Partial<AuthorizeRequest> = {}) => attemptAt(ACCOUNT, '', {
    methodType: 'wallet', paymentMethodToken: undefined, returnUrl: 'https://shop.example/back', ...over,
  });
  const sentUnder = (id: string) => pp.requests.filter((r) => r.headers['paypal-request-id'] === id);
  const withSignal = (req: AuthorizeRequest) => ({ ...req, signal: callSignal() });

  test('authorize: an order keyed by the attempt id, answered requires_action with PayPal\'s approval page', async () => {
    const req = pay();
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'requires_action', show(r));
    const order = pp.orders.get(r.providerPaymentId!)!;
    assert.equal(r.customerAction?.type, 'redirect');
    assert.equal(r.customerAction?.url, `${pp.baseUrl}/checkoutnow?token=${order.id}`);
    assert.equal(r.customerAction?.fee, 10n + 30n);
    assert.ok(r.customerAction!.expiresAt! > new Date(Date.now() + 25 * 60_000), 'the approval window is the action\'s expiry');
    const [sent] = sentUnder(req.attemptId);
    assert.equal(sent.path, '/v2/checkout/orders');
    assert.match(String(sent.headers.authorization), /^Bearer A21AA/);
    assert.deepEqual(sent.body.purchase_units, [{ reference_id: req.paymentId, custom_id: req.attemptId, amount: { currency_code: 'EUR', value: '25.00' } }]);
    assert.equal(sent.body.intent, 'CAPTURE');
    assert.equal(sent.body.payment_source.paypal.experience_context.return_url, 'https://shop.example/back');
  });

  test('getStatus: the same order again until approved, then captured once however often it is asked', async () => {
    const req = pay();
    const first = await connector.authorize(req);
    const waiting = await connector.getStatus(withSignal(req));
    assert.deepEqual([waiting.found, waiting.found && waiting.outcome, waiting.found && waiting.providerPaymentId], [true, 'requires_action', first.providerPaymentId]);
    assert.equal(pp.orders.size, [...pp.orders.values()].length);
    pp.approve(first.providerPaymentId!);
    for (let i = 0; i < 2; i++) {
      const s = await connector.getStatus(withSignal(req));
      assert.equal(s.found && s.outcome, 'success', show(s));
      assert.equal(s.found && s.fee, 40n);
    }
    const captures = sentUnder(`${req.attemptId}-capture`);
    assert.equal(captures.length, 1, 'the second status query finds the order completed and captures nothing');
    assert.equal(captures[0].path, `/v2/checkout/orders/${first.providerPaymentId}/capture`);
    assert.equal(pp.orders.get(first.providerPaymentId!)!.purchase_units[0].payments!.captures!.length, 1);
  });

  test('manual capture: authorized on approval, then captured (partially) through the authorization; a void after it is refused', async () => {
    const req = pay({ captureMethod: 'manual' });
    const r = await connector.authorize(req);
    assert.equal(pp.requests.at(-1)!.body.intent, 'AUTHORIZE');
    pp.approve(r.providerPaymentId!);
    const s = await connector.getStatus(withSignal(req));
    assert.equal(s.found && s.outcome, 'success', show(s));
    assert.match(String(s.found && s.providerMessage), /held until captured/);
    const auth = pp.orders.get(r.providerPaymentId!)!.purchase_units[0].payments!.authorizations![0];
    const captured = await connector.capture!(holdOf(req, r.providerPaymentId!, 'capture', 2000n));
    assert.equal(captured.outcome, 'success', show(captured));
    const [sent] = sentUnder(`${req.attemptId}_capture`);
    assert.equal(sent.path, `/v2/payments/authorizations/${auth.id}/capture`);
    assert.deepEqual(sent.body, { amount: { currency_code: 'EUR', value: '20.00' }, final_capture: true });
    const voided = await connector.cancel!(holdOf(req, r.providerPaymentId!, 'cancel'));
    assert.equal(voided.outcome, 'hard_decline', show(voided));
  });

  test('cancel: an authorization is voided; an order nobody approved holds nothing to release', async () => {
    const held = pay({ captureMethod: 'manual' });
    const r = await connector.authorize(held);
    assert.equal((await connector.cancel!(holdOf(held, r.providerPaymentId!, 'expire'))).outcome, 'success');
    assert.equal(sentUnder(`${held.attemptId}_expire`).length, 0, 'no void is sent for an order without a hold');
    pp.approve(r.providerPaymentId!);
    await connector.getStatus(withSignal(held));
    const voided = await connector.cancel!(holdOf(held, r.providerPaymentId!, 'cancel'));
    assert.equal(voided.outcome, 'success', show(voided));
    assert.match(sentUnder(`${held.attemptId}_cancel`)[0].path, /^\/v2\/payments\/authorizations\/AUTH\d+\/void$/);
  });

  test('refund: of the order\'s capture under our refund id, partial; more than is left is PayPal\'s REFUND_AMOUNT_EXCEEDED', async () => {
    const req = pay();
    const r = await connector.authorize(req);
    pp.approve(r.providerPaymentId!);
    await connector.getStatus(withSignal(req));
    const part = refundOf(req, r.providerPaymentId, 1000n);
    const refunded = await connector.refund(part);
    assert.equal(refunded.outcome, 'success', show(refunded));
    assert.match(refunded.providerRefundId!, /^REF/);
    const [sent] = sentUnder(part.refundId);
    assert.match(sent.path, /^\/v2\/payments\/captures\/CAP\d+\/refund$/);
    assert.deepEqual(sent.body, { amount: { currency_code: 'EUR', value: '10.00' }, custom_id: part.refundId });
    // The same refund again (its answer lost): PayPal answers the first refund, nothing more is refunded.
    assert.equal((await connector.refund({ ...part, signal: callSignal() })).providerRefundId, refunded.providerRefundId);
    const tooMuch = await connector.refund(refundOf(req, r.providerPaymentId, 2000n));
    assert.deepEqual([tooMuch.outcome, tooMuch.providerCode], ['hard_decline', 'REFUND_AMOUNT_EXCEEDED']);
  });

  test('a declined funding source at capture is INSTRUMENT_DECLINED, a soft decline from the table', async () => {
    const req = pay();
    const r = await connector.authorize(req);
    pp.approve(r.providerPaymentId!);
    pp.declineFunding(r.providerPaymentId!);
    const s = await connector.getStatus(withSignal(req));
    assert.equal(s.found && s.outcome, 'soft_decline', show(s));
    assert.deepEqual(s.found && s.failure, { category: 'soft', code: ISSUES.INSTRUMENT_DECLINED.code, message: ISSUES.INSTRUMENT_DECLINED.message, declineReason: 'generic_decline' });
    assert.equal(s.found && s.providerCode, 'INSTRUMENT_DECLINED');
  });

  test('refused before sending: a card, a currency PayPal lacks, and no return_url', async () => {
    const card = await connector.authorize(pay({ methodType: 'card' }));
    assert.deepEqual([card.outcome, card.failure?.code], ['soft_decline', 'method_not_supported']);
    const kwd = await connector.authorize(pay({ currency: 'KWD', amount: 1000n }));
    assert.deepEqual([kwd.outcome, kwd.failure?.code], ['soft_decline', 'amount_not_supported']);
    const noReturn = await connector.authorize(pay({ returnUrl: undefined }));
    assert.deepEqual([noReturn.outcome, noReturn.failure?.code], ['technical_error', 'action_not_supported']);
  });

  test('the orchestrator\'s deadline ends the call: a time-out, and the status query then finds the order', async () => {
    const req = pay();
    pp.slowAttempts.add(req.attemptId);
    const started = Date.now();
    const lost = await connector.authorize({ ...req, signal: AbortSignal.timeout(200) });
    assert.equal(lost.outcome, 'timeout', show(lost));
    assert.ok(Date.now() - started < 1_000);
    pp.slowAttempts.delete(req.attemptId);
    const s = await connector.getStatus(withSignal(req));
    assert.equal(s.found && s.outcome, 'requires_action', show(s));
    assert.equal([...pp.orders.values()].filter((o) => o.purchase_units[0].custom_id === req.attemptId).length, 1, 'one order only');
  });

  test('credentials: test asks for a token; a wrong secret is PayPal\'s invalid_client', async () => {
    assert.deepEqual(await connector.checkCredentials!({ providerCode: 'paypal', id: 'pac_pp_good' }), { ok: true });
    const bad = await connector.checkCredentials!({ providerCode: 'paypal', id: 'pac_pp_bad' });
    assert.deepEqual([bad.ok, !bad.ok && bad.providerCode], [false, 'invalid_client']);
    const none = await connector.authorize(pay({ account: { ...ACCOUNT, id: 'pac_pp_none' } }));
    assert.equal(none.outcome, 'provider_unavailable');
  });

  test('the address policy: a loopback api_base_url the operator did not list is never called', async () => {
    const before = pp.requests.length;
    const r = await unlisted.authorize(pay());
    assert.equal(r.outcome, 'timeout', show(r));
    assert.equal((await unlisted.checkCredentials!({ providerCode: 'paypal', id: 'pac_pp_good' })).ok, false);
    assert.equal(pp.requests.length, before);
  });

  test('webhooks: verified by PayPal; an approval is captured once, its replay captures nothing more, a forgery is refused', async () => {
    const req = pay();
    const r = await connector.authorize(req);
    const order = pp.approve(r.providerPaymentId!);
    const delivery = signedEvent('CHECKOUT.ORDER.APPROVED', { ...order }, WEBHOOK_ID);
    const read = (d: { body: string; headers: Record<string, string> }) => connector.readNotification!({
      account: { providerCode: 'paypal', id: 'pac_pp_good' }, rawBody: Buffer.from(d.body), headers: d.headers,
    } satisfies NotificationRequest);
    const checked = await read(delivery);
    assert.ok(checked.ok, show(checked));
    const [n] = checked.notifications;
    assert.equal(n.eventId, delivery.eventId);
    assert.deepEqual(n.subject.kind === 'payment' && [n.subject.attemptId, n.subject.providerPaymentId, n.subject.result.outcome], [req.attemptId, order.id, 'success']);
    assert.equal(pp.requests.at(-1)!.path, `/v2/checkout/orders/${order.id}/capture`);
    const verify = pp.requests.filter((x) => x.path === '/v1/notifications/verify-webhook-signature').at(-1)!;
    assert.equal(verify.body.webhook_id, WEBHOOK_ID);
    assert.equal(verify.body.webhook_event.id, delivery.eventId);
    // The replay reads the same event id (payments records it once) and PayPal answers the same capture.
    const again = await read(delivery);
    assert.ok(again.ok && again.notifications[0].eventId === delivery.eventId);
    assert.equal(pp.orders.get(order.id)!.purchase_units[0].payments!.captures!.length, 1);
    // Signed for another webhook, or altered after signing: PayPal does not confirm it.
    const forged = signedEvent('CHECKOUT.ORDER.APPROVED', { ...order }, 'WH-OTHER');
    assert.equal((await read(forged)).ok, false);
    const altered = { ...delivery, body: delivery.body.replace(req.attemptId, 'att_someoneelse') };
    assert.equal((await read(altered)).ok, false);
    const unsigned = { body: delivery.body, headers: { 'content-type': 'application/json' } };
    assert.equal((await read(unsigned)).ok, false);
  });

  test('webhooks: an approval after the approval window takes nothing (the payment may have expired here)', async () => {
    // An attempt made 40 minutes ago: its customer action expired at 30, reconciliation's to settle.
    const req = pay({ attemptId: newId('att', new Date(Date.now() - 40 * 60_000)) });
    const r = await connector.authorize(req);
    const order = pp.approve(r.providerPaymentId!);
    const d = signedEvent('CHECKOUT.ORDER.APPROVED', { ...order }, WEBHOOK_ID);
    const c = await connector.readNotification!({ account: { providerCode: 'paypal', id: 'pac_pp_good' }, rawBody: Buffer.from(d.body), headers: d.headers });
    assert.ok(c.ok, show(c));
    assert.deepEqual(c.notifications[0].subject, { kind: 'ignored' });
    assert.equal(pp.requests.filter((x) => x.path === `/v2/checkout/orders/${order.id}/capture`).length, 0);
    assert.equal(pp.orders.get(order.id)!.status, 'APPROVED');
  });

  test('getStatus long after the approval window: an order nobody approved has lapsed, an approved one is still captured', async () => {
    // Attempts made 40 minutes ago whose answers were lost: reconciliation asks about them now.
    const old = () => pay({ attemptId: newId('att', new Date(Date.now() - 40 * 60_000)) });
    const lapsed = old();
    const s = await connector.getStatus(lapsed);
    assert.deepEqual([s.found && s.outcome, s.found && s.failure?.code], ['technical_error', 'payment_cancelled'], show(s));
    const approved = old();
    const r = await connector.authorize(approved);
    pp.approve(r.providerPaymentId!);
    const a = await connector.getStatus(withSignal(approved));
    assert.equal(a.found && a.outcome, 'success', show(a));
  });

  test('webhooks: captures, authorizations and refunds by PayPal\'s event types', async () => {
    const read = async (type: string, resource: Record<string, unknown>) => {
      const d = signedEvent(type, resource, WEBHOOK_ID);
      const c = await connector.readNotification!({ account: { providerCode: 'paypal', id: 'pac_pp_good' }, rawBody: Buffer.from(d.body), headers: d.headers });
      assert.ok(c.ok, show(c));
      return c.notifications[0].subject;
    };
    const related = (extra = {}) => ({ related_ids: { order_id: 'ORD1', ...extra } });
    assert.deepEqual(await read('PAYMENT.CAPTURE.COMPLETED', { id: 'CAP1', status: 'COMPLETED', custom_id: 'att_x', supplementary_data: related() }),
      { kind: 'payment', attemptId: 'att_x', providerPaymentId: 'ORD1', result: { outcome: 'success', providerPaymentId: 'ORD1', providerCode: 'PAYMENT.CAPTURE.COMPLETED', providerMessage: 'Approved', fee: 0n } });
    const captured = await read('PAYMENT.CAPTURE.COMPLETED', { id: 'CAP2', status: 'COMPLETED', supplementary_data: related({ authorization_id: 'AUTH1' }) });
    assert.deepEqual([captured.kind, captured.kind === 'capture' && captured.result.outcome], ['capture', 'success']);
    const denied = await read('PAYMENT.CAPTURE.DENIED', { id: 'CAP3', status: 'DECLINED', custom_id: 'att_y', supplementary_data: related() });
    assert.deepEqual([denied.kind, denied.kind === 'payment' && denied.result.outcome], ['payment', 'hard_decline']);
    const refund = await read('PAYMENT.CAPTURE.REFUNDED', { id: 'REF1', status: 'COMPLETED', custom_id: 'rf_z' });
    assert.deepEqual(refund.kind === 'refund' && [refund.refundId, refund.providerRefundId, refund.result.outcome], ['rf_z', 'REF1', 'success']);
    assert.deepEqual(await read('PAYMENT.CAPTURE.PENDING', { id: 'CAP4', supplementary_data: related() }), { kind: 'ignored' });
  });
});
