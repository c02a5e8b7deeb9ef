// Mollie's webhook is unauthenticated and each post made one authenticated Mollie
// API call, so anyone who knew an account's pac_ id spent that merchant's Mollie rate limit. Through
// the REST gateway, against the Mollie stand-in counting every request: posts for one payment are
// coalesced (one fetch per window, and one more after it if posts came meanwhile), ids that are none
// of the account's payments are never fetched, fetches per account are bounded per second, and a
// real change is still read.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { startMollieStandIn, type MollieStandIn } from './helpers/mollie-stand-in.js';
import { eventually } from './helpers/eventually.js';
import { request } from './helpers/stack.js';

const liveKey = () => `live_${randomBytes(15).toString('hex')}`;
const KEYS = Array.from({ length: 4 }, liveKey);
/** At most this many Mollie fetches per account in one second (documented in decisions.md). */
const PER_ACCOUNT_PER_SECOND = 10;

describe('Mollie notification floods (stand-in)', () => {
  let stack: LicensedProviderStack;
  let mollie: MollieStandIn;
  let keys: string[];

  before(async () => {
    keys = [...KEYS];
    mollie = await startMollieStandIn({ apiKeys: KEYS });
    stack = await startLicensedProviderStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
  });
  after(async () => {
    await stack?.close();
    await mollie?.close();
  });

  async function merchantAtMollie() {
    const m = await stack.newMerchantKey('live');
    const apiKey = keys.shift()!;
    const account = await stack.connectLive(m.projectId, {
      provider: 'mollie', name: 'Mollie NL', fee_bps: 30, fee_fixed: 29,
      credentials: { api_key: apiKey, webhook_base_url: stack.baseUrl, api_base_url: mollie.baseUrl },
    });
    return { ...m, account, apiKey, hook: `${stack.baseUrl}/providers/mollie/webhooks/${account}` };
  }
  async function idealPayment(secret: string) {
    const res = await stack.pay(secret, {
      payment_method: { type: 'local', token: 'ideal', provider_code: 'mollie' }, return_url: 'https://shop.example/done',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return { id: res.body.id as string, trId: res.body.attempts[0].provider_payment_id as string };
  }
  const post = (url: string, id: string) => fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ id }).toString(),
  });
  /** The authenticated fetches of payments Mollie's stand-in received with this key. */
  const fetches = (apiKey: string) => mollie.requests.filter((r) =>
    r.method === 'GET' && r.path.startsWith('/v2/payments/tr_') && r.headers.authorization === `Bearer ${apiKey}`);
  const statusOf = async (secret: string, id: string) =>
    (await request(stack.baseUrl, 'GET', `/v1/payments/${id}`, { key: secret })).body.status as string;

  test('50 posts for one payment make at most three Mollie fetches, and its real change is still read', async () => {
    const m = await merchantAtMollie();
    const p = await idealPayment(m.secret);
    const before = fetches(m.apiKey).length;
    for (let i = 0; i < 50; i++) {
      // The customer pays in the middle of the flood: a post before it may have read `open`.
      if (i === 25) mollie.setStatus(p.trId, 'paid');
      const res = await post(m.hook, p.trId);
      assert.equal(res.status, 200, await res.text());
    }
    await eventually('the payment successful', async () => ((await statusOf(m.secret, p.id)) === 'successful' ? true : undefined), 15_000);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const made = fetches(m.apiKey).length - before;
    assert.ok(made >= 1 && made <= 3, `${made} Mollie fetches for 50 posts`);
  });

  test('ids that are none of the account\'s payments are answered 200 and never fetched', async () => {
    const m = await merchantAtMollie();
    const other = await merchantAtMollie();
    const foreign = await idealPayment(other.secret);
    const before = fetches(m.apiKey).length;
    const ids = [foreign.trId, ...Array.from({ length: 49 }, (_, i) => `tr_madeUp${i}x${randomBytes(4).toString('hex')}`)];
    const answers = await Promise.all(ids.map((id) => post(m.hook, id)));
    assert.deepEqual([...new Set(answers.map((r) => r.status))], [200]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal(fetches(m.apiKey).length - before, 0, 'no Mollie call for ids the account never had');
  });

  test('posts for many of an account\'s payments at once: at most the account\'s rate per second, and every change read', async () => {
    const m = await merchantAtMollie();
    const payments: Array<{ id: string; trId: string }> = [];
    for (let i = 0; i < 30; i++) payments.push(await idealPayment(m.secret));
    for (const p of payments) mollie.setStatus(p.trId, 'paid');
    const before = fetches(m.apiKey).length;
    const answers = await Promise.all(payments.map((p) => post(m.hook, p.trId)));
    assert.deepEqual([...new Set(answers.map((r) => r.status))], [200]);
    let statuses: string[] = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 500))) {
      statuses = [];
      for (const p of payments) statuses.push(await statusOf(m.secret, p.id));
      if (statuses.every((s) => s === 'successful')) break;
    }
    assert.deepEqual([...new Set(statuses)], ['successful'], `every payment read as paid (${fetches(m.apiKey).length - before} fetches)`);
    const made = fetches(m.apiKey).slice(before);
    const perSecond = new Map<number, number>();
    for (const r of made) perSecond.set(Math.floor(r.at / 1000), (perSecond.get(Math.floor(r.at / 1000)) ?? 0) + 1);
    // Granted at most PER_ACCOUNT_PER_SECOND per second of the database's clock, in its first half;
    // under load a fetch granted in one second may still reach the stand-in in the next.
    assert.ok([...perSecond.values()].every((n) => n <= 2 * PER_ACCOUNT_PER_SECOND), `per second: ${JSON.stringify([...perSecond])}`);
    assert.ok(perSecond.size >= 3, `${made.length} fetches spread over ${perSecond.size} seconds, not one burst`);
    assert.ok(made.length <= payments.length + 2, `${made.length} fetches for ${payments.length} payments`);
  });
});
