// The same class as Mollie's notifications: every delivery to a PayPal account's webhook
// address is verified by asking PayPal (verify-webhook-signature with the account's credentials), so
// a stranger posting forged deliveries made one authenticated PayPal call each. Through the REST
// gateway against the PayPal stand-in: at most the account's notification budget per second reaches
// PayPal, the excess is a 429 (PayPal delivers again later), and a genuine delivery still goes through.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { signedEvent, startPayPalStandIn, type PayPalStandIn } from './helpers/paypal-stand-in.js';
import { deliverNotification } from './helpers/provider-notifications.js';

const CLIENT_ID = `ALive${randomBytes(12).toString('hex')}`;
const SECRET = `ELive${randomBytes(12).toString('hex')}`;
const WEBHOOK_ID = `WH${randomBytes(8).toString('hex').toUpperCase()}`;
/** Provider calls per account per second that notifications may cause (decisions.md). */
const PER_ACCOUNT_PER_SECOND = 10;
/** More than the account's budget for the seconds a delivery may wait, so some are refused. */
const FORGED = 40;

describe('PayPal notification floods (stand-in)', () => {
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

  test('forged deliveries in a burst: at most the account\'s budget of PayPal calls a second, the rest 429; a genuine one still goes through', async () => {
    const m = await stack.newMerchantKey('live');
    const account = await stack.connectLive(m.projectId, {
      provider: 'paypal', name: 'PayPal', fee_bps: 290, fee_fixed: 35,
      credentials: { client_id: CLIENT_ID, client_secret: SECRET, webhook_id: WEBHOOK_ID, api_base_url: pp.baseUrl },
    });
    const verifies = () => pp.requests.filter((r) => r.path === '/v1/notifications/verify-webhook-signature');
    const before = verifies().length;
    const answers = await Promise.all(Array.from({ length: FORGED }, () =>
      deliverNotification(stack.baseUrl, 'paypal', account, signedEvent('PAYMENT.CAPTURE.PENDING', { id: 'X' }, 'WH-SOMEONE-ELSE'))));
    const statuses = answers.map((r) => r.status);
    const made = verifies().slice(before);
    const perSecond = new Map<number, number>();
    for (const r of made) perSecond.set(Math.floor(r.at / 1000), (perSecond.get(Math.floor(r.at / 1000)) ?? 0) + 1);
    // Granted at most PER_ACCOUNT_PER_SECOND per second (database clock), each delivery waiting up to
    // two seconds for one; how many seconds the burst spans depends on how fast it reaches the part,
    // so the total is not bounded, only each second's. A call granted early in one second may reach
    // PayPal in the next under load (its OAuth token first), so arrivals per second are bounded by
    // two. Each granted delivery made one call and was refused by it (400); the rest got a 429.
    assert.equal(made.length, statuses.filter((s) => s === 400).length, `${made.length} PayPal calls, answers ${statuses.join(',')}`);
    assert.ok([...perSecond.values()].every((n) => n <= 2 * PER_ACCOUNT_PER_SECOND), `PayPal calls per second: ${JSON.stringify([...perSecond])}`);
    assert.ok(statuses.every((s) => s === 400 || s === 429), `answers: ${statuses.join(',')}`);
    const limited = answers.find((r) => r.status === 429)!;
    assert.ok(limited, 'the excess is refused');
    assert.equal(((await limited.json()) as { error: { code: string } }).error.code, 'rate_limited');

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const genuine = await deliverNotification(stack.baseUrl, 'paypal', account, signedEvent('PAYMENT.CAPTURE.PENDING', { id: 'X' }, WEBHOOK_ID));
    assert.equal(genuine.status, 200, await genuine.text());
  });
});
