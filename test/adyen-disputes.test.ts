// Adyen's disputes through the REST gateway, with the official library pointed at Adyen's stand-in:
// a live merchant's Adyen payment gets a CHARGEBACK (HMAC-signed as Adyen signs its notifications),
// the merchant defends it with a document (retrieveApplicableDefenseReasons, supplyDefenseDocument,
// defendDispute reach the stand-in), CHARGEBACK_REVERSED gives the money back, and a
// SECOND_CHARGEBACK takes it again at pre-arbitration; redelivered and late notifications change
// nothing more (three movements, one each). Accept is the Disputes API's acceptDispute; evidence
// without a document is refused by the connector before any call, since Adyen defends with
// documents only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { expectError } from './helpers/api-assertions.js';
import { signedNotification, startAdyenStandIn, type AdyenStandIn, type NotificationItemInput } from './helpers/adyen-stand-in.js';
import { adyenEu, startLiveStandIns, type LiveStandIns } from './helpers/live-stand-ins.js';
import { deliverNotification } from './helpers/provider-notifications.js';
import { request } from './helpers/stack.js';

const STRIPE_KEY = `sk_live_standin_${randomBytes(8).toString('hex')}`;
const ADYEN_KEY = `AQE_standin_${randomBytes(8).toString('hex')}`;
const MERCHANT = 'AcmeShopEU';
const HMAC_KEY = randomBytes(32).toString('hex').toUpperCase();
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(64, 0x20)]);

describe('disputes at Adyen, through the REST gateway', () => {
  let live: LiveStandIns<{ adyen: AdyenStandIn }>;
  let m: Awaited<ReturnType<LiveStandIns<{ adyen: AdyenStandIn }>['stack']['newMerchantKey']>> & { accountId: string };

  before(async () => {
    live = await startLiveStandIns(STRIPE_KEY, { adyen: () => startAdyenStandIn({ apiKeys: [ADYEN_KEY], merchantAccounts: [MERCHANT] }) });
    const merchant = await live.stack.newMerchantKey('live');
    const accountId = await live.stack.connectLive(merchant.projectId, adyenEu(live.adyen, { api_key: ADYEN_KEY, merchant_account: MERCHANT, hmac_key: HMAC_KEY }));
    m = { ...merchant, accountId };
  });
  after(async () => {
    await live?.close();
  });

  const api = (method: string, path: string, body?: unknown) => request(live.stack.baseUrl, method, path, { key: m.secret, body });
  const recorded = async () => (await live.stack.query(
    'SELECT count(*)::int AS n FROM payments.provider_notifications WHERE provider_account_id = $1', [m.accountId],
  )).rows[0].n as number;
  /** Delivers a signed batch as Adyen does (answered "[accepted]"); how many notifications were new. */
  async function send(...items: NotificationItemInput[]): Promise<{ new_notifications: number }> {
    const before = await recorded();
    const res = await deliverNotification(live.stack.baseUrl, 'adyen', m.accountId, {
      body: signedNotification(HMAC_KEY, items, true), headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual([res.status, await res.text()], [200, '[accepted]']);
    return { new_notifications: (await recorded()) - before };
  }
  async function disputed() {
    const paid = await live.stack.pay(m.secret, { payment_method: { type: 'card', token: 'standin_card', provider_code: 'adyen' } });
    assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
    const d = live.adyen.openDispute(paid.body.attempts[0].provider_payment_id);
    const item = (code: string, status: string, at = new Date()) => live.adyen.disputeItem(MERCHANT, d, code, status, at);
    return { payment: paid.body, atAdyen: d, item };
  }
  const disputeOf = async (paymentId: string) => (await api('GET', `/v1/disputes?payment_id=${paymentId}`)).body.data[0];
  const movements = async (disputeId: string) => (await live.stack.query(
    'SELECT kind, amount::int FROM payments.dispute_fund_movements WHERE dispute_id = $1 ORDER BY seq', [disputeId],
  )).rows.map((r) => `${r.kind} ${r.amount}`);

  test('CHARGEBACK, defended with a document, CHARGEBACK_REVERSED, then SECOND_CHARGEBACK; redelivered and late, one movement each', async () => {
    const { payment, atAdyen, item } = await disputed();
    const t0 = Date.now();
    const chargeback = item('CHARGEBACK', 'Undefended', new Date(t0));
    assert.equal((await send(chargeback)).new_notifications, 1);
    let d = await disputeOf(payment.id);
    assert.deepEqual(
      [d.provider_dispute_id, d.amount, d.currency, d.reason, d.provider_reason, d.stage, d.status, d.funds_withdrawn, d.attempt_id],
      [atAdyen.pspReference, 2500, 'EUR', 'fraudulent', 'visa 10.4', 'chargeback', 'needs_response', true, payment.attempts[0].id],
    );
    assert.equal(d.evidence_due_by, chargeback.additionalData!.defensePeriodEndsAt);

    const doc = await api('POST', `/v1/disputes/${d.id}/documents`, { filename: 'invoice.pdf', type: 'application/pdf', content: PDF.toString('base64') });
    assert.equal(doc.status, 201, JSON.stringify(doc.body));
    const defended = await api('POST', `/v1/disputes/${d.id}/evidence`, { shipping_tracking_number: '1Z999AA10123456784', documents: [doc.body.id], submit: true });
    assert.equal(defended.status, 200, JSON.stringify(defended.body));
    assert.equal(defended.body.status, 'under_review');
    assert.deepEqual(live.adyen.requests.filter((r) => r.path.startsWith('/DisputeService/')).map((r) => r.path),
      ['/DisputeService/retrieveApplicableDefenseReasons', '/DisputeService/supplyDefenseDocument', '/DisputeService/defendDispute']);
    assert.deepEqual([atAdyen.status, atAdyen.defenseReasonCode, atAdyen.documents],
      ['Responded', 'GoodsOrServicesProvided', [{ defenseDocumentTypeCode: 'TIDorInvoice', contentType: 'application/pdf', bytes: PDF.length }]]);

    const reversed = item('CHARGEBACK_REVERSED', 'Won', new Date(t0 + 60_000));
    assert.equal((await send(reversed)).new_notifications, 1);
    d = await disputeOf(payment.id);
    assert.deepEqual([d.stage, d.status, d.funds_withdrawn], ['chargeback', 'won', false]);

    const second = item('SECOND_CHARGEBACK', 'Lost', new Date(t0 + 120_000));
    assert.equal((await send(second)).new_notifications, 1);
    d = await disputeOf(payment.id);
    assert.deepEqual([d.stage, d.status, d.funds_withdrawn], ['pre_arbitration', 'lost', true]);

    // Adyen retries the three in one batch: recorded already, nothing moves.
    assert.equal((await send(chargeback, reversed, second)).new_notifications, 0);
    // A late NOTIFICATION_OF_CHARGEBACK dated before them all: recorded, ignored (never backwards).
    assert.equal((await send(item('NOTIFICATION_OF_CHARGEBACK', 'Undefended', new Date(t0 - 60_000)))).new_notifications, 1);
    d = await disputeOf(payment.id);
    assert.deepEqual([d.stage, d.status, d.funds_withdrawn], ['pre_arbitration', 'lost', true]);
    assert.deepEqual(await movements(d.id), ['withdrawal 2500', 'reinstatement 2500', 'withdrawal 2500']);
    const rows = await live.stack.query(
      'SELECT effect FROM payments.provider_notifications WHERE provider_account_id = $1 AND dispute_id = $2 OR (provider_account_id = $1 AND event_id LIKE $3) ORDER BY received_at',
      [m.accountId, d.id, `${atAdyen.pspReference}:%`],
    );
    assert.deepEqual(rows.rows.map((r) => r.effect), ['applied', 'applied', 'applied', 'ignored']);
  });

  test('accept is the Disputes API\'s acceptDispute; the funds stay withdrawn', async () => {
    const { payment, atAdyen, item } = await disputed();
    await send(item('CHARGEBACK', 'Undefended'));
    const d = await disputeOf(payment.id);
    const accepted = await api('POST', `/v1/disputes/${d.id}/accept`);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual([accepted.body.status, accepted.body.funds_withdrawn], ['accepted', true]);
    assert.equal(atAdyen.status, 'Accepted');
    const call = live.adyen.requests.findLast((r) => r.path === '/DisputeService/acceptDispute')!;
    assert.deepEqual(call.body, { disputePspReference: atAdyen.pspReference, merchantAccountCode: MERCHANT });
  });

  test('evidence without a document is refused in Adyen\'s terms before any call, and the dispute still needs a response', async () => {
    const { payment, atAdyen, item } = await disputed();
    await send(item('CHARGEBACK', 'Undefended'));
    const d = await disputeOf(payment.id);
    const before = live.adyen.requests.length;
    const refused = await api('POST', `/v1/disputes/${d.id}/evidence`, { uncategorized_text: 'Delivered on time.', submit: true });
    expectError(refused, 409, 'provider_error', 'provider_declined', 'id');
    assert.match(refused.body.error.message, /documents only/);
    assert.equal(live.adyen.requests.length, before);
    assert.equal(atAdyen.status, 'Undefended');
    assert.equal((await api('GET', `/v1/disputes/${d.id}`)).body.status, 'needs_response');
  });
});
