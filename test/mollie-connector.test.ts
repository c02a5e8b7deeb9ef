// The Mollie connector on the official @mollie/api-client, pointed at the local Mollie stand-in with
// api_base_url: what each call sends (JSON bodies, amount objects, methods, Idempotency-Keys), how
// Mollie's answers become the connector interface's outcomes and failures (the tables of
// mollie/errors.ts), the status query by our attempt id, the webhook read by fetching the payment
// with the account's key, the settlements, and the address policy on the SDK's requests.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMollieConnector } from '../services/connectors/mollie/connector.js';
import type { AuthorizeRequest, Connector, CredentialSource, NotificationRequest } from '../services/connectors/index.js';
import { newId } from '../services/platform/ids.js';
import { attemptAt, refundOf, sentUnder } from './helpers/connector-requests.js';
import { startMollieStandIn, type MollieStandIn } from './helpers/mollie-stand-in.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';

const KEY = 'test_standinKeyAAAAAAAAAAAAAAAAAAAAA';
const OTHER_KEY = 'test_standinKeyBBBBBBBBBBBBBBBBBBBBB';
const HOOKS = 'https://pay.example.com';
const show = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

describe('the Mollie connector against the Mollie stand-in', () => {
  let mollie: MollieStandIn;
  let connector: Connector;
  let unlisted: Connector;

  before(async () => {
    mollie = await startMollieStandIn({ apiKeys: [KEY, OTHER_KEY] });
    const values = (key: string) => ({ api_key: key, webhook_base_url: HOOKS, api_base_url: mollie.baseUrl });
    const credentials: CredentialSource = {
      async get(id) {
        if (id === 'pac_mollie_good') return { mode: 'test', values: values(KEY) };
        if (id === 'pac_mollie_other') return { mode: 'test', values: values(OTHER_KEY) };
        if (id === 'pac_mollie_bad') return { mode: 'test', values: values('test_notAKeyTheStandInKnows0000000') };
        return undefined;
      },
    };
    connector = createMollieConnector({ credentials, network: { allowlist: [STAND_IN_ORIGINS] } });
    // The same accounts without the operator's loopback opt-in: the address policy applies as for every provider.
    unlisted = createMollieConnector({ credentials, network: { allowlist: [] } });
  });
  after(() => mollie?.close());

  const ACCOUNT = { providerCode: 'mollie', id: 'pac_mollie_good', feeFixed: 10n, feeBps: 120, latencyMs: 0 };
  const ideal = (over: Partial<AuthorizeRequest> = {}) =>
    attemptAt(ACCOUNT, 'ideal', { methodType: 'local', returnUrl: 'https://shop.example/done', ...over });
  const notification = (body: string, id = ACCOUNT.id): NotificationRequest => ({
    account: { providerCode: 'mollie', id }, rawBody: Buffer.from(body), headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

  test('authorize: POST /v2/payments with the API key, the attempt id as Idempotency-Key, the customer sent to Mollie\'s page', async () => {
    const req = ideal();
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'requires_action', show(r));
    assert.match(r.providerPaymentId!, /^tr_standin/);
    assert.equal(r.customerAction?.type, 'redirect');
    assert.equal(r.customerAction?.url, `${mollie.baseUrl}/checkout/select-issuer/ideal/${r.providerPaymentId}`);
    assert.ok(r.customerAction?.expiresAt instanceof Date);
    assert.equal(r.customerAction?.fee, 10n + 30n);
    const [sent, ...more] = sentUnder(mollie.requests, req.attemptId);
    assert.equal(more.length, 0);
    assert.equal(sent.path, '/v2/payments');
    assert.equal(sent.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(sent.body, {
      amount: { currency: 'EUR', value: '25.00' }, description: `Payment ${req.paymentId}`, method: 'ideal',
      redirectUrl: 'https://shop.example/done', webhookUrl: `${HOOKS}/providers/mollie/webhooks/pac_mollie_good`,
      metadata: { payment_id: req.paymentId, attempt_id: req.attemptId },
    });
  });

  test('methods: a type without a token offers its methods; SEPA bank transfer shows its details; a foreign token or no return_url sends nothing', async () => {
    const local = ideal({ paymentMethodToken: undefined });
    assert.equal((await connector.authorize(local)).outcome, 'requires_action');
    assert.deepEqual(sentUnder(mollie.requests, local.attemptId)[0].body.method, ['ideal', 'bancontact', 'eps', 'przelewy24', 'blik', 'kbc', 'belfius', 'twint', 'mybank', 'satispay']);
    const transfer = await connector.authorize(ideal({ methodType: 'bank_transfer', paymentMethodToken: undefined }));
    assert.equal(transfer.customerAction?.type, 'display_details', show(transfer));
    const before = mollie.requests.length;
    const foreign = await connector.authorize(ideal({ paymentMethodToken: 'tok_visa' }));
    assert.deepEqual([foreign.outcome, foreign.failure?.code], ['technical_error', 'payment_method_unknown']);
    const noReturn = await connector.authorize(ideal({ returnUrl: undefined }));
    assert.deepEqual([noReturn.outcome, noReturn.failure?.code], ['technical_error', 'return_url_required']);
    const cents = await connector.authorize(ideal({ currency: 'JPY', amount: 2500n }));
    assert.equal(cents.outcome, 'requires_action', 'JPY has no decimals at Mollie either');
    assert.equal(mollie.requests.length, before + 1);
    assert.deepEqual(mollie.requests.at(-1)!.body.amount, { currency: 'JPY', value: '2500' });
  });

  test('errors: a 422 naming `method` is a policy refusal that fails over; a bad key is provider_auth_failed', async () => {
    mollie.failNextPayment(422, 'method');
    const r = await connector.authorize(ideal());
    assert.deepEqual([r.outcome, r.failure?.category, r.failure?.code, r.providerCode], ['soft_decline', 'policy', 'method_not_supported', '422:method']);
    const bad = await connector.authorize(ideal({ account: { ...ACCOUNT, id: 'pac_mollie_bad' } }));
    assert.deepEqual([bad.outcome, bad.failure?.code], ['technical_error', 'provider_auth_failed']);
    const missing = await connector.authorize(ideal({ account: { ...ACCOUNT, id: 'pac_mollie_none' } }));
    assert.deepEqual([missing.outcome, missing.failure?.code], ['provider_unavailable', 'provider_not_configured']);
  });

  test('a 5xx is repeated by the SDK under the same Idempotency-Key: one payment; the deadline ends the call during the SDK\'s wait', async () => {
    mollie.failNextPayment(503);
    const req = ideal({ signal: AbortSignal.timeout(8_000) });
    const r = await connector.authorize(req);
    assert.equal(r.outcome, 'requires_action', show(r));
    assert.equal(sentUnder(mollie.requests, req.attemptId).length, 2);
    assert.equal([...mollie.payments.values()].filter((p) => (p.metadata as Record<string, string>).attempt_id === req.attemptId).length, 1);

    mollie.failNextPayment(503);
    const hurried = ideal({ signal: AbortSignal.timeout(400) });
    const started = Date.now();
    const lost = await connector.authorize(hurried);
    assert.deepEqual([lost.outcome, lost.failure?.code], ['timeout', 'provider_timeout']);
    assert.ok(Date.now() - started < 1_500, 'not the SDK\'s 2 s wait between repeats');
  });

  test('getStatus: found by our attempt id in the list; never sent and recent: sent again under its key; older than the key: never received', async () => {
    const req = ideal();
    const first = await connector.authorize(req);
    const status = await connector.getStatus({ ...req, signal: AbortSignal.timeout(5_000) });
    assert.equal(status.found, true);
    assert.equal(status.found && status.providerPaymentId, first.providerPaymentId);
    assert.equal(sentUnder(mollie.requests, req.attemptId).length, 1, 'the list answered; nothing was sent again');

    const lost = ideal();
    const repeated = await connector.getStatus(lost);
    assert.equal(repeated.found && repeated.outcome, 'requires_action');
    assert.equal(sentUnder(mollie.requests, lost.attemptId).length, 1);

    const old = ideal({ attemptId: newId('att', new Date(Date.now() - 2 * 3600_000)) });
    assert.deepEqual(await connector.getStatus(old), { found: false });
    assert.equal(sentUnder(mollie.requests, old.attemptId).length, 0);
  });

  test('refund: POST /v2/payments/{id}/refunds under our refund id; a repeat is the same refund; more than is left is refused', async () => {
    const req = ideal();
    const { providerPaymentId } = await connector.authorize(req);
    mollie.setStatus(providerPaymentId!, 'paid');
    const refund = refundOf(req, providerPaymentId, 1000n);
    const r = await connector.refund(refund);
    assert.equal(r.outcome, 'success', show(r));
    assert.match(r.providerRefundId!, /^re_standin/);
    const [sent] = sentUnder(mollie.requests, refund.refundId);
    assert.equal(sent.path, `/v2/payments/${providerPaymentId}/refunds`);
    assert.deepEqual(sent.body, { amount: { currency: 'EUR', value: '10.00' }, description: `Refund ${refund.refundId}`, metadata: { refund_id: refund.refundId } });
    const again = await connector.refund({ ...refund, signal: AbortSignal.timeout(5_000) });
    assert.equal(again.providerRefundId, r.providerRefundId);
    assert.equal(mollie.payments.get(providerPaymentId!)!.amountRefunded.value, '10.00');
    const tooMuch = await connector.refund(refundOf(req, providerPaymentId, 2000n));
    assert.deepEqual([tooMuch.outcome, tooMuch.providerCode], ['hard_decline', '422:amount']);
  });

  test('notifications: the posted id is fetched with the account\'s key and its state decides; unknown and other accounts\' ids change nothing', async () => {
    const req = ideal();
    const { providerPaymentId } = await connector.authorize(req);
    const id = providerPaymentId!;
    const open = await connector.readNotification!(notification(`id=${id}`));
    assert.ok(open.ok);
    assert.deepEqual(open.notifications.map((n) => [n.eventId, n.subject.kind]), [[`${id}:open`, 'ignored']]);

    mollie.setStatus(id, 'paid');
    const paid = await connector.readNotification!(notification(`id=${id}`));
    assert.ok(paid.ok);
    const [n] = paid.notifications;
    assert.equal(n.eventId, `${id}:paid`);
    assert.equal(n.subject.kind, 'payment');
    assert.ok(n.subject.kind === 'payment');
    assert.deepEqual([n.subject.attemptId, n.subject.providerPaymentId, n.subject.result.outcome, n.subject.result.fee], [req.attemptId, id, 'success', 0n]);
    assert.equal(mollie.requests.at(-1)!.query.get('embed'), 'refunds,chargebacks');

    // Unknown at Mollie, or another account's payment: answered (200), nothing to record.
    assert.deepEqual(await connector.readNotification!(notification('id=tr_madeUp123')), { ok: true, notifications: [] });
    assert.deepEqual(await connector.readNotification!(notification(`id=${id}`, 'pac_mollie_other')), { ok: true, notifications: [] });
    // Not Mollie's form at all: refused.
    for (const body of ['', 'id=', 'id=re_abc', '{"id":"tr_abc"}', `id=${id}/../x`]) {
      const r = await connector.readNotification!(notification(body));
      assert.equal(r.ok, false, body);
    }

    const refund = refundOf(req, id, 500n);
    const accepted = await connector.refund(refund);
    mollie.setRefundStatus(accepted.providerRefundId!, 'failed');
    const reversed = await connector.readNotification!(notification(`id=${id}`));
    assert.ok(reversed.ok);
    const r = reversed.notifications.find((x) => x.subject.kind === 'refund')!;
    assert.equal(r.eventId, `${accepted.providerRefundId}:failed`);
    assert.ok(r.subject.kind === 'refund');
    assert.deepEqual([r.subject.refundId, r.subject.result.outcome], [refund.refundId, 'hard_decline']);
    assert.match(r.subject.result.reversalReason!, /failed at Mollie/);
  });

  test('a failed payment is read through the failure-reason and status tables', async () => {
    const { providerPaymentId } = await connector.authorize(ideal());
    mollie.setStatus(providerPaymentId!, 'failed', 'insufficient_funds');
    const check = await connector.readNotification!(notification(`id=${providerPaymentId}`));
    assert.ok(check.ok && check.notifications[0].subject.kind === 'payment');
    const { result } = check.notifications[0].subject;
    assert.deepEqual([result.outcome, result.failure?.code, result.providerCode], ['hard_decline', 'insufficient_funds', 'insufficient_funds']);
    const { providerPaymentId: other } = await connector.authorize(ideal());
    mollie.setStatus(other!, 'expired');
    const expired = await connector.readNotification!(notification(`id=${other}`));
    assert.ok(expired.ok && expired.notifications[0].subject.kind === 'payment');
    assert.equal(expired.notifications[0].subject.result.failure?.code, 'customer_action_expired');
  });

  test('checkCredentials: the payment list answers a good key; a bad key is named', async () => {
    assert.deepEqual(await connector.checkCredentials!({ providerCode: 'mollie', id: 'pac_mollie_good' }), { ok: true });
    const bad = await connector.checkCredentials!({ providerCode: 'mollie', id: 'pac_mollie_bad' });
    assert.deepEqual([bad.ok, !bad.ok && bad.providerCode], [false, '401']);
  });

  test('settlements: Mollie\'s paid-out settlement with its payments, refunds, chargebacks and costs', async () => {
    const req = ideal({ account: { ...ACCOUNT, id: 'pac_mollie_other' } });
    const { providerPaymentId } = await connector.authorize(req);
    mollie.setStatus(providerPaymentId!, 'paid');
    const refund = refundOf(req, providerPaymentId, 700n);
    const { providerRefundId } = await connector.refund(refund);
    const stl = mollie.settle(OTHER_KEY, [providerPaymentId!], [providerRefundId!], { currency: 'EUR', value: '0.29' }, [
      { paymentId: providerPaymentId!, amount: { currency: 'EUR', value: '18.00' } },
    ]);
    const [s, ...more] = await connector.listSettlements!({ account: { providerCode: 'mollie', id: 'pac_mollie_other' }, signal: AbortSignal.timeout(5_000) });
    assert.equal(more.length, 0);
    assert.deepEqual([s.reference, s.currency, s.status], [stl.reference, 'EUR', 'settled']);
    assert.deepEqual(s.items, [
      { type: 'payment', attemptId: req.attemptId, providerReference: providerPaymentId, amount: 2500n, fee: 0n },
      { type: 'refund', refundId: refund.refundId, providerReference: providerRefundId, amount: -700n, fee: 0n },
      // The chargeback settles the dispute's withdrawal, by the chargeback's and its payment's ids.
      { type: 'dispute', providerReference: stl.chargebacks[0].id, paymentReference: providerPaymentId, amount: -1800n, fee: 0n },
    ]);
    assert.deepEqual(s.fees, [{ amount: 29n, description: 'ideal: iDEAL' }]);
    assert.deepEqual(await connector.listSettlements!({ account: { providerCode: 'mollie', id: 'pac_mollie_other' }, since: new Date(Date.now() + 60_000), signal: AbortSignal.timeout(5_000) }), []);
  });

  test('address policy: without the operator\'s opt-in a loopback api_base_url is refused and nothing reaches it', async () => {
    const seen = mollie.requests.length;
    const r = await unlisted.authorize(ideal());
    assert.deepEqual([r.outcome, r.failure?.code], ['timeout', 'provider_timeout'], show(r));
    const checked = await unlisted.checkCredentials!({ providerCode: 'mollie', id: 'pac_mollie_good' });
    assert.equal(checked.ok, false);
    assert.match(!checked.ok ? checked.message : '', /could not be reached/);
    assert.equal(mollie.requests.length, seen);
  });
});
