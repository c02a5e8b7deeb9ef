// Live wallet payments at a PayPal account through the REST gateway: a project connects a PayPal
// account with the management API, pointed at the PayPal stand-in with api_base_url, and the shipped
// connector (the PROVIDERS list) reads the sealed credentials. A wallet payment goes through
// PayPal's approval redirect and is captured when PayPal's webhook says the customer approved; a
// manual-capture one is authorized, then captured; a refund reaches PayPal; forged and replayed
// notifications change nothing, nor does a genuine one out of order; a private or unlisted base URL
// is refused at connect.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { signedEvent, startPayPalStandIn, type PayPalStandIn } from './helpers/paypal-stand-in.js';
import { deliverNotification, notificationRows, type NotificationDelivery } from './helpers/provider-notifications.js';
import { request } from './helpers/stack.js';

const CLIENT_ID = `ALive${randomBytes(12).toString('hex')}`;
const SECRET = `ELive${randomBytes(12).toString('hex')}`;
const WEBHOOK_ID = `WH${randomBytes(8).toString('hex').toUpperCase()}`;
const RETURN_URL = 'https://shop.example/paypal/back';

describe('live wallet payments at a PayPal account (stand-in)', () => {
  let stack: LicensedProviderStack;
  let pp: PayPalStandIn;

  before(async () => {
    pp = await startPayPalStandIn({ clients: { [CLIENT_ID]: SECRET }, webhookIds: { [CLIENT_ID]: WEBHOOK_ID } });
    stack = await startLicensedProviderStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
  });
  after(async () => {
    await stack?.close();
    await pp?.close();
  });

  const credentials = (over: Record<string, string> = {}) => ({
    client_id: CLIENT_ID, client_secret: SECRET, webhook_id: WEBHOOK_ID, api_base_url: pp.baseUrl, ...over,
  });
  /** A verified merchant's live key with a PayPal account connected live through the management API. */
  async function merchantAtPayPal() {
    const m = await stack.newMerchantKey('live');
    const account = await stack.connectLive(m.projectId, { provider: 'paypal', name: 'PayPal', fee_bps: 290, fee_fixed: 35, credentials: credentials() });
    return { ...m, account };
  }
  const payWallet = (key: string, body: Record<string, unknown> = {}) =>
    stack.pay(key, { payment_method: { type: 'wallet' }, return_url: RETURN_URL, ...body });
  const get = (key: string, path: string) => request(stack.baseUrl, 'GET', path, { key });
  const post = (key: string, path: string, body?: Record<string, unknown>) => request(stack.baseUrl, 'POST', path, { key, body });
  const deliver = (accountId: string, d: NotificationDelivery) => deliverNotification(stack.baseUrl, 'paypal', accountId, d);
  const notifications = (accountId: string) => notificationRows(stack, accountId);
  const capturesOf = (orderId: string) => pp.requests.filter((r) => r.path === `/v2/checkout/orders/${orderId}/capture`);

  test('connect checks the fields: a sandbox environment on a live account, a missing webhook id, private and unlisted base URLs are 422s', async () => {
    const m = await stack.newMerchantKey('live');
    const connect = (c: Record<string, string>) => stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'live', provider: 'paypal', name: 'PayPal', credentials: c,
    });
    const sandbox = await connect(credentials({ environment: 'sandbox' }));
    assert.equal(sandbox.status, 422, JSON.stringify(sandbox.body));
    assert.equal(sandbox.body.error.param, 'environment');
    const { webhook_id: _w, ...noWebhook } = credentials();
    const missing = await connect(noWebhook);
    assert.equal(missing.status, 422, JSON.stringify(missing.body));
    assert.match(JSON.stringify(missing.body), /webhook_id/);
    // The stand-ins' loopback opt-in is http://127.0.0.1:*: a private address or another loopback name is not listed.
    for (const url of ['https://10.0.0.5/', `http://localhost:${new URL(pp.baseUrl).port}`, 'https://169.254.169.254/']) {
      const refused = await connect(credentials({ api_base_url: url }));
      assert.equal(refused.status, 422, `${url}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.error.param, 'api_base_url');
    }
  });

  test('svc provider test reaches PayPal through its connector (an OAuth token for the client id and secret)', async () => {
    const m = await merchantAtPayPal();
    const tokens = pp.requests.filter((r) => r.path === '/v1/oauth2/token').length;
    const res = await stack.manage('POST', `/provider-accounts/${m.account}/test`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.ok, true, JSON.stringify(res.body));
    assert.equal(pp.requests.filter((r) => r.path === '/v1/oauth2/token').length, tokens + 1);
  });

  test('a wallet payment goes through PayPal\'s approval redirect and is captured on its webhook; a forgery and a replay change nothing; its refund reaches PayPal', async () => {
    const m = await merchantAtPayPal();
    const res = await payWallet(m.secret);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    const attempt = res.body.attempts[0];
    assert.equal(attempt.provider_account_id, m.account);
    const orderId = attempt.provider_payment_id;
    assert.equal(res.body.next_action.type, 'redirect');
    assert.equal(res.body.next_action.url, `${pp.baseUrl}/checkoutnow?token=${orderId}`);
    const [created] = pp.requests.filter((r) => r.headers['paypal-request-id'] === attempt.id);
    assert.equal(created.path, '/v2/checkout/orders');
    assert.deepEqual(created.body.purchase_units[0], { reference_id: res.body.id, custom_id: attempt.id, amount: { currency_code: 'EUR', value: '25.00' } });

    // A forgery first (signed for another webhook): refused, nothing captured or recorded.
    const order = pp.approve(orderId);
    const forged = await deliver(m.account, signedEvent('CHECKOUT.ORDER.APPROVED', { ...order }, 'WH-SOMEONE-ELSE'));
    assert.equal(forged.status, 400);
    assert.equal(((await forged.json()) as { error: { code: string } }).error.code, 'invalid_signature');
    assert.equal(capturesOf(orderId).length, 0);
    assert.deepEqual(await notifications(m.account), []);
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'processing');

    // The customer approved on PayPal's page; PayPal says so: the order is captured, the payment succeeds.
    const approved = signedEvent('CHECKOUT.ORDER.APPROVED', { ...order }, WEBHOOK_ID);
    const delivered = await deliver(m.account, approved);
    assert.equal(delivered.status, 200, await delivered.text());
    const paid = (await get(m.secret, `/v1/payments/${res.body.id}`)).body;
    assert.equal(paid.status, 'successful', JSON.stringify(paid));
    assert.equal(paid.attempts[0].fee_amount, 35 + 72, 'the fee quoted with the approval link: 35 + 2500 × 2.9 %, rounded down');
    assert.deepEqual(paid.fee, { amount: 107, currency: 'EUR' });
    assert.equal(capturesOf(orderId).length, 1);
    assert.equal(capturesOf(orderId)[0].headers['paypal-request-id'], `${attempt.id}-capture`);

    // PayPal's retry, or a replay of the captured delivery: the same event id, nothing changes.
    const timeline = async () => (await get(m.secret, `/v1/payments/${res.body.id}/timeline`)).body.data as unknown[];
    const entries = (await timeline()).length;
    assert.equal((await deliver(m.account, approved)).status, 200);
    assert.equal((await timeline()).length, entries);
    assert.equal(pp.orders.get(orderId)!.purchase_units[0].payments!.captures!.length, 1);
    // PayPal's capture event after it confirms the success; a forged denial changes nothing.
    const capture = pp.orders.get(orderId)!.purchase_units[0].payments!.captures![0];
    const completedEvent = signedEvent('PAYMENT.CAPTURE.COMPLETED', capture, WEBHOOK_ID);
    assert.equal((await deliver(m.account, completedEvent)).status, 200);
    assert.equal((await deliver(m.account, signedEvent('PAYMENT.CAPTURE.DENIED', capture, 'not-the-webhook'))).status, 400);
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'successful');
    // A genuine denial arriving out of order, after the capture: recorded, ignored, never moving the payment back.
    const outOfOrder = signedEvent('PAYMENT.CAPTURE.DENIED', { ...capture, status: 'DECLINED' }, WEBHOOK_ID);
    assert.equal((await deliver(m.account, outOfOrder)).status, 200);
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'successful');
    assert.deepEqual((await notifications(m.account)).sort(),
      [[approved.eventId, 'applied'], [completedEvent.eventId, 'confirmed'], [outOfOrder.eventId, 'ignored']].sort());

    const refund = await post(m.secret, `/v1/payments/${res.body.id}/refund`, { amount: 1000 });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.status, 'successful', JSON.stringify(refund.body));
    assert.match(refund.body.provider_refund_id, /^REF/);
    const [refundSent] = pp.requests.filter((r) => r.headers['paypal-request-id'] === refund.body.id);
    assert.equal(refundSent.path, `/v2/payments/captures/${capture.id}/refund`);
    assert.deepEqual(refundSent.body, { amount: { currency_code: 'EUR', value: '10.00' }, custom_id: refund.body.id });
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'partially_refunded');
  });

  test('a manual-capture wallet payment is authorized on approval, then captured at PayPal through its authorization', async () => {
    const m = await merchantAtPayPal();
    const res = await payWallet(m.secret, { capture_method: 'manual' });
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    const attempt = res.body.attempts[0];
    const orderId = attempt.provider_payment_id;
    assert.equal(pp.orders.get(orderId)!.intent, 'AUTHORIZE');
    const order = pp.approve(orderId);
    const delivered = await deliver(m.account, signedEvent('CHECKOUT.ORDER.APPROVED', { ...order }, WEBHOOK_ID));
    assert.equal(delivered.status, 200, await delivered.text());
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'authorized');
    const auth = pp.orders.get(orderId)!.purchase_units[0].payments!.authorizations![0];
    assert.equal(auth.status, 'CREATED');

    const captured = await post(m.secret, `/v1/payments/${res.body.id}/capture`, { amount: 2000 });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    assert.equal(captured.body.status, 'captured', JSON.stringify(captured.body));
    assert.equal(captured.body.captured_amount, 2000);
    const sent = pp.requests.filter((r) => r.path === `/v2/payments/authorizations/${auth.id}/capture`);
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0].body.amount, { currency_code: 'EUR', value: '20.00' });
    assert.equal(auth.status, 'CAPTURED');
  });
});
