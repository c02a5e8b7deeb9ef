// The walk-through that opens docs/connectors.md, step by step as a merchant with a Stripe and an
// Adyen account would type it: the `svc` CLI as its own process with the
// secrets in its environment, the REST API with the live key, the providers' signed notifications,
// and Adyen's Settlement details report. The stand-ins play Stripe and Adyen (the official SDKs
// pointed at them with --api-base-url); everything else is the real stack. Each step asserts what the
// page says the merchant sees.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAdyenStandIn, type AdyenStandIn } from './helpers/adyen-stand-in.js';
import { adyenSettlementReport, settledLine, type ReportLine } from './helpers/adyen-settlement-report.js';
import { eventually } from './helpers/eventually.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { deliver, signed, stripeEvent } from './helpers/stripe-events.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';
import { runSvc } from './helpers/svc-cli.js';

const STRIPE_SECRET_KEY = `sk_live_standin_${randomBytes(8).toString('hex')}`;
const STRIPE_WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
const ADYEN_API_KEY = `AQE_live_standin_${randomBytes(8).toString('hex')}`;
const ADYEN_HMAC_KEY = randomBytes(32).toString('hex').toUpperCase();
const MERCHANT_ACCOUNT = 'AcmeECOM';

/** The first capture of `pattern` in a command's output, or a failure quoting the output. */
function read(output: string, pattern: RegExp): string {
  const found = pattern.exec(output)?.[1];
  assert.ok(found, `no ${pattern} in:\n${output}`);
  return found;
}

describe('docs/connectors.md walk-through: Stripe and Adyen accounts, live', () => {
  let stack: TestStack;
  let stripe: StripeStandIn;
  let adyen: AdyenStandIn;
  let dir: string;
  // What the merchant notes down as the walk-through goes on.
  const my = {} as Record<'merchant' | 'project' | 'stripe' | 'adyen' | 'liveKey' | 'payment' | 'refund', string>;
  let paid: any;

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [STRIPE_SECRET_KEY] });
    adyen = await startAdyenStandIn({ apiKeys: [ADYEN_API_KEY], merchantAccounts: [MERCHANT_ACCOUNT] });
    stack = await startTestStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
    dir = await mkdtemp(join(tmpdir(), 'connectors-walkthrough-'));
  });
  after(async () => {
    await stack?.close();
    await stripe?.close();
    await adyen?.close();
  });

  /** `svc …` as the page shows it, with the deployment's URL and operator token exported. */
  async function svc(args: string[], env: Record<string, string> = {}): Promise<string> {
    const run = await runSvc(args, { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken, ...env });
    assert.equal(run.code, 0, `svc ${args.join(' ')}\n${run.stdout}${run.stderr}`);
    return run.stdout;
  }
  /** `curl` with the live key, as the page shows it. */
  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(stack.baseUrl, method, path, { key: my.liveKey, body, headers });

  test('1. create the merchant and its project', async () => {
    const out = await svc(['merchant', 'create', '--name', 'Acme Ltd']);
    my.merchant = read(out, /^merchant (mer_\S+)/m);
    my.project = read(out, /^project\s+(prj_\S+)/m);
  });

  test('2. connect the Stripe and the Adyen account, secrets from the environment', async () => {
    const stripeOut = await svc([
      'provider', 'connect', '--project', my.project, '--mode', 'live', '--provider', 'stripe', '--name', 'Stripe EU',
      '--fee-percent', '1.4', '--fee-fixed', '25', '--api-base-url', stripe.baseUrl,
    ], { STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET });
    my.stripe = read(stripeOut, /^(pac_\S+)\s+live\s+active\s+stripe/m);
    assert.match(stripeOut, /credentials: api_base_url, secret_key, webhook_secret \(stored encrypted, never shown/);
    assert.ok(!stripeOut.includes(STRIPE_SECRET_KEY) && !stripeOut.includes(STRIPE_WEBHOOK_SECRET));

    const adyenOut = await svc([
      'provider', 'connect', '--project', my.project, '--mode', 'live', '--provider', 'adyen', '--name', 'Adyen EU',
      '--merchant-account', MERCHANT_ACCOUNT, '--live-url-prefix', '1797a841fbb37ca7-AcmeECOM',
      '--fee-percent', '1.5', '--fee-fixed', '25', '--api-base-url', adyen.baseUrl,
    ], { ADYEN_API_KEY, ADYEN_HMAC_KEY });
    my.adyen = read(adyenOut, /^(pac_\S+)\s+live\s+active\s+adyen/m);
    assert.ok(!adyenOut.includes(ADYEN_API_KEY) && !adyenOut.includes(ADYEN_HMAC_KEY));
  });

  test('3. svc provider test: both accounts\' credentials work', async () => {
    assert.match(await svc(['provider', 'test', my.stripe]), /stripe \(live\): credentials accepted/);
    assert.match(await svc(['provider', 'test', my.adyen]), /adyen \(live\): credentials accepted/);
    assert.ok(stripe.requests.some((r) => r.path === '/v1/balance'), 'Stripe was asked for the balance');
    assert.ok(adyen.requests.some((r) => r.path === '/paymentMethods'), 'Adyen was asked for payment methods');
  });

  test('4. verification approved, then a live key', async () => {
    assert.match(await svc(['merchant', 'verify', my.merchant]), /\(verification: approved\)/);
    const out = await svc(['key', 'create', '--project', my.project, '--mode', 'live', '--name', 'shop']);
    my.liveKey = read(out, /^secret: (svc_sk_live_\S+)$/m);
  });

  test('5. a live payment with a card stored at both: a soft decline at Stripe fails over to Adyen', async () => {
    const pm = await api('POST', '/v1/payment-methods', { type: 'card', provider_token: 'pm_card_chargeDeclined', provider_code: 'stripe' });
    assert.equal(pm.status, 201, JSON.stringify(pm.body));
    const adyenToken = await api('POST', `/v1/payment-methods/${pm.body.id}/credentials`, {
      type: 'provider_token', token: '8415718415172200', provider_code: 'adyen',
    });
    assert.equal(adyenToken.status, 201, JSON.stringify(adyenToken.body));
    const res = await api('POST', '/v1/payments', {
      amount: 5000, currency: 'EUR', payment_method: { type: 'card', id: pm.body.id },
    }, { 'Idempotency-Key': 'order-1001' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    paid = res.body;
    assert.equal(paid.status, 'successful', JSON.stringify(paid));
    assert.deepEqual(
      paid.attempts.map((a: any) => [a.provider_account_id, a.outcome, a.provider_code]),
      [[my.stripe, 'soft_decline', 'generic_decline'], [my.adyen, 'success', 'Authorised']],
    );
    assert.equal(paid.route.provider.code, 'adyen');
    assert.equal(paid.fee.amount, 100, '1.5 % + 25 of 5000, the Adyen account\'s price');
    my.payment = paid.id;
  });

  test('6. refund part of it at Adyen', async () => {
    const res = await api('POST', `/v1/payments/${my.payment}/refund`, { amount: 1000 }, { 'Idempotency-Key': 'order-1001-refund-1' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    assert.match(res.body.provider_refund_id, /\S/);
    my.refund = res.body.id;
    const payment = (await api('GET', `/v1/payments/${my.payment}`)).body;
    assert.deepEqual([payment.status, payment.refunded_amount], ['partially_refunded', 1000]);
  });

  test('7. a redirect payment (3-D Secure at Stripe) completed by Stripe\'s signed webhook', async () => {
    const res = await api('POST', '/v1/payments', {
      amount: 2000, currency: 'EUR', payment_method: { type: 'card', token: 'pm_card_authenticationRequired' },
      return_url: 'https://shop.example/orders/1002',
    }, { 'Idempotency-Key': 'order-1002' });
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    assert.equal(res.body.next_action.type, 'redirect');
    const intent = res.body.attempts[0].provider_payment_id;
    assert.equal(res.body.next_action.url, `${stripe.baseUrl}/3ds/${intent}`);

    // The customer authenticates on Stripe's page; Stripe posts payment_intent.succeeded to the account's URL.
    stripe.completeAuthentication(intent);
    const event = signed(stripeEvent('payment_intent.succeeded', stripe.intents.get(intent)!), STRIPE_WEBHOOK_SECRET);
    const told = await deliver(stack.baseUrl, my.stripe, event);
    assert.equal(told.status, 200, JSON.stringify(told.body));
    const done = (await api('GET', `/v1/payments/${res.body.id}`)).body;
    assert.equal(done.status, 'successful', JSON.stringify(done));
    const timeline = (await api('GET', `/v1/payments/${res.body.id}/timeline`)).body.data as any[];
    assert.ok(timeline.some((e) => e.type === 'provider.notification' && e.data.effect === 'applied'), JSON.stringify(timeline));
  });

  test('8. import Adyen\'s Settlement details report', async () => {
    const psp = paid.attempts[1].provider_payment_id;
    const refund = (await api('GET', `/v1/refunds/${my.refund}`)).body;
    const base: ReportLine = { 'Company Account': 'AcmeCompany', 'Merchant Account': MERCHANT_ACCOUNT, TimeZone: 'CET', 'Batch Number': '1' };
    const file = join(dir, 'settlement_detail_report_batch_1.csv');
    await writeFile(file, adyenSettlementReport([
      settledLine({ ...base, 'Creation Date': '2024-06-03 09:00:00' }, {
        psp, reference: paid.attempts[1].id, capturePsp: 'CAPTUREPSP000001', gross: '50.00',
        commission: '1.00', markup: '', scheme: '', interchange: '', net: '49.00',
      }),
      {
        ...base, 'Psp Reference': psp, 'Merchant Reference': paid.attempts[1].id, 'Payment Method': 'visa',
        'Creation Date': '2024-06-03 12:00:00', Type: 'Refunded', 'Modification Reference': refund.provider_refund_id,
        'Gross Currency': 'EUR', 'Gross Debit (GC)': '10.00', 'Exchange Rate': '1', 'Net Currency': 'EUR',
        'Net Debit (NC)': '10.00', 'Modification Merchant Reference': my.refund,
      },
      { ...base, 'Creation Date': '2024-06-04 05:00:00', Type: 'MerchantPayout', 'Modification Reference': 'TX1XT', 'Net Currency': 'EUR', 'Net Debit (NC)': '39.00' },
    ]));

    // The page: a report naming what the ledger has not recorded yet is refused; import it once it has.
    await eventually('the payment and the refund in the ledger', async () => {
      const moved = (await api('GET', '/v1/transactions?status=successful')).body.data as any[];
      return [my.payment, my.refund].every((id) => moved.some((t) => t.entity_id === id)) || undefined;
    });
    const out = await svc(['settlement', 'import', '--provider-account', my.adyen, file]);
    assert.match(out, /adyen \(live\): 1 new, 0 unchanged/);
    const [s] = (await api('GET', '/v1/settlements')).body.data as any[];
    assert.deepEqual(
      [s.settlement_reference, s.status, s.gross_amount, s.fee_amount, s.net_amount, s.transaction_count],
      ['1', 'settled', 4000, 100, 3900, 2],
    );
    const items = (await api('GET', `/v1/settlements/${s.id}`)).body.items as any[];
    assert.deepEqual(items.map((i) => [i.type, i.entity_id, i.amount]).sort(), [['payment', my.payment, 5000], ['refund', my.refund, -1000]]);
  });
});
