// Money safety of forwarded attempts under kill -9: the six parts as processes, a
// verified merchant's live Stripe account, Adyen account and Stripe vault forwarding to Adyen,
// each pointed at its stand-in, and a burst of keyed payments with one stored card that Stripe
// declines softly, so each is paid at Adyen through Stripe's Forwarding API (some of whose answers
// are lost on the way back) while the payments process is killed and restarted. Clients retry
// with the same Idempotency-Key. Whatever the crash cut short: each key has one payment, Adyen made
// each attempt at most once and authorised each payment at most once, a payment Adyen authorised is
// successful here with that very attempt, a forwarded attempt Adyen never received charged nobody,
// and the ledger has one movement per successful payment.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startAdyenStandIn, type AdyenStandIn } from './helpers/adyen-stand-in.js';
import { chaosTag } from './helpers/chaos.js';
import { eventually } from './helpers/eventually.js';
import { burstWithKill, chaosEnv, ledgerMovements, paymentsByKey as burstPayments } from './helpers/keyed-burst.js';
import type { KeyedOutcome } from './helpers/keyed-client.js';
import { natsServerMissing, startNatsServer, type NatsServer } from './helpers/nats-server.js';
import { startSplitStack, type SplitStack } from './helpers/split-stack.js';
import { request } from './helpers/stack.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';

const PAYMENTS = 30;
const CLIENTS = 6;
const KILL_AFTER_STORED = 10;
const STRIPE_KEY = `sk_live_fwdchaos_${Date.now()}`;
const ADYEN_KEY = `AQE_live_fwdchaos_${Date.now()}`;
const MERCHANT_ACCOUNT = 'AcmeECOM';
// Declined softly at Stripe by the stand-in: every payment fails over to Adyen, forwarded.
const VAULTED = 'pm_card_chargeDeclined';
const ENV = chaosEnv(1_000);

const skip = natsServerMissing();

describe('payments killed (kill -9) during a keyed burst of forwarded attempts, then restarted', { skip }, () => {
  let nats: NatsServer;
  let split: SplitStack;
  let sql: pg.Pool;
  let stripe: StripeStandIn;
  let adyen: AdyenStandIn;
  let apiKey = '';
  let adyenAccount = '';
  let methodId = '';
  const prefix = `${chaosTag('fwd')}_`;
  const keys = Array.from({ length: PAYMENTS }, (_, i) => `${prefix}${i}`);
  let outcomes = new Map<string, KeyedOutcome>();

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [STRIPE_KEY] });
    stripe.vaultedCards.set(VAULTED, { number: '5555444433331111', expMonth: '03', expYear: '2030', cvc: '737', name: 'Ada Lovelace' });
    adyen = await startAdyenStandIn({ apiKeys: [ADYEN_KEY], merchantAccounts: [MERCHANT_ACCOUNT] });
    nats = await startNatsServer();
    split = await startSplitStack(nats.url, ENV);
    sql = new pg.Pool({ connectionString: split.db.url, max: 3 });
    await setUpMerchant();
    // A few forwarded answers lost on the way back: reconciliation must settle them from Adyen directly.
    stripe.lostForwardAnswers.answers = 3;
    outcomes = await burstWithKill({
      split, sql, apiKey, keys, prefix, clients: CLIENTS, killAfterStored: KILL_AFTER_STORED,
      body: (i) => ({ amount: 1000 + i, currency: 'EUR', payment_method: { type: 'card', id: methodId } }),
    });
  });
  after(async () => {
    await sql?.end();
    await split?.close();
    await nats?.close();
    await stripe?.close();
    await adyen?.close();
  });

  async function setUpMerchant(): Promise<void> {
    const manage = async (path: string, body?: unknown) => {
      const res = await request(split.baseUrl, 'POST', `/manage/v1${path}`, { key: split.operatorToken, body });
      assert.ok(res.status === 200 || res.status === 201, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const merchant = await manage('/merchants', { name: 'Forwarding chaos merchant' });
    await manage(`/merchants/${merchant.merchant.id}/verify`);
    const projectId = merchant.project.id;
    const connect = async (body: Record<string, unknown>) => (await manage(`/projects/${projectId}/provider-accounts`, { mode: 'live', ...body })).id;
    await connect({
      provider: 'stripe', name: 'Stripe EU', fee_bps: 100, fee_fixed: 5,
      credentials: { secret_key: STRIPE_KEY, webhook_secret: 'whsec_live_fwdchaos', api_base_url: stripe.baseUrl },
    });
    adyenAccount = await connect({
      provider: 'adyen', name: 'Adyen EU', fee_bps: 150, fee_fixed: 10,
      credentials: {
        api_key: ADYEN_KEY, merchant_account: MERCHANT_ACCOUNT, hmac_key: randomBytes(32).toString('hex').toUpperCase(),
        live_url_prefix: '1797a841fbb37ca7-AcmeECOM', api_base_url: adyen.baseUrl,
      },
    });
    await connect({
      provider: 'stripe_vault', name: 'Stripe vault', fee_fixed: 15, fee_bps: 0,
      credentials: { secret_key: STRIPE_KEY, destinations: 'adyen', api_base_url: stripe.baseUrl },
    });
    apiKey = (await manage(`/projects/${projectId}/keys`, { mode: 'live', name: 'live' })).secret;
    const pm = await request(split.baseUrl, 'POST', '/v1/payment-methods', {
      key: apiKey, body: { type: 'card', provider_token: VAULTED, provider_code: 'stripe' },
    });
    assert.equal(pm.status, 201, JSON.stringify(pm.body));
    methodId = pm.body.id;
    const vault = await request(split.baseUrl, 'POST', `/v1/payment-methods/${methodId}/credentials`, {
      key: apiKey, body: { type: 'vault_token', token: VAULTED, vault: 'stripe' },
    });
    assert.equal(vault.status, 201, JSON.stringify(vault.body));
  }

  const paymentsByKey = () => burstPayments(sql, prefix, keys);

  /** Adyen's payments for one of ours: its reference is our attempt id. */
  async function adyenPaymentsFor(paymentId: string) {
    const { rows } = await sql.query('SELECT id FROM payments.payment_attempts WHERE payment_id = $1', [paymentId]);
    const attempts = new Set(rows.map((r) => r.id));
    return [...adyen.payments.values()].filter((p) => attempts.has(p.reference));
  }

  const OPEN = new Set(['created', 'pending', 'processing']);

  test('every key has one payment, and Adyen made each forwarded attempt at most once and authorised each payment at most once', async (t) => {
    const byKey = await paymentsByKey();
    assert.deepEqual(keys.filter((k) => byKey.get(k)!.length !== 1), [], 'keys without exactly one payment');
    const perAttempt = new Map<string, number>();
    for (const p of adyen.payments.values()) perAttempt.set(p.reference, (perAttempt.get(p.reference) ?? 0) + 1);
    assert.deepEqual([...perAttempt].filter(([, n]) => n > 1), [], 'attempts Adyen made twice');
    let authorised = 0;
    for (const [ours] of byKey.values()) {
      const made = (await adyenPaymentsFor(ours.id)).filter((p) => p.resultCode === 'Authorised');
      assert.ok(made.length <= 1, `${ours.id}: authorised ${made.length} times at Adyen`);
      authorised += made.length;
    }
    for (const k of keys) {
      const o = outcomes.get(k)!;
      if (o.status === 201) assert.equal(o.body.id, byKey.get(k)![0].id, k);
      else assert.ok(OPEN.has(byKey.get(k)![0].status), `${k} ended ${o.status} with its payment ${byKey.get(k)![0].status}`);
    }
    assert.ok(stripe.forwarded.length > 0, 'the burst was forwarded');
    t.diagnostic(`${stripe.forwarded.length} forwards, ${adyen.payments.size} payments made at Adyen, ${authorised} authorised; `
      + `${keys.filter((k) => outcomes.get(k)!.status !== 201).length} clients without a 201`);
  });

  test('once reconciled, a payment Adyen authorised is successful with that forwarded attempt, one it never received charged nobody, and the ledger moved each once', async () => {
    const byKey = await eventually('every payment decided', async () => {
      const now = await paymentsByKey();
      return [...now.values()].flat().every((p) => !OPEN.has(p.status)) ? now : undefined;
    }, 60_000).catch(async (err) => {
      const { rows } = await sql.query(
        `SELECT p.id, p.status, a.attempt_number, a.status AS attempt, a.outcome, a.provider_code, a.vault, a.updated_at
         FROM payments.payments p JOIN payments.payment_attempts a ON a.payment_id = p.id
         WHERE p.reference LIKE $1 AND p.status IN ('created', 'pending', 'processing') ORDER BY p.id, a.attempt_number`, [`${prefix}%`]);
      throw new Error(`${(err as Error).message}: ${JSON.stringify(rows)}`);
    });
    const successful: string[] = [];
    for (const k of keys) {
      const [ours] = byKey.get(k)!;
      const p = (await request(split.baseUrl, 'GET', `/v1/payments/${ours.id}`, { key: apiKey })).body;
      const authorised = (await adyenPaymentsFor(p.id)).find((x) => x.resultCode === 'Authorised');
      const successes = (p.attempts as any[]).filter((a) => a.outcome === 'success');
      assert.ok(successes.length <= 1, `${k}: ${successes.length} successful attempts`);
      if (authorised) {
        assert.equal(p.status, 'successful', `${k}: authorised at Adyen but ${p.status}`);
        assert.deepEqual(successes.map((a) => [a.provider_account_id, a.provider_payment_id, a.path, a.vault]),
          [[adyenAccount, authorised.pspReference, 'forwarded', 'stripe']], k);
        successful.push(p.id);
      } else {
        assert.notEqual(p.status, 'successful', `${k}: successful with nothing authorised at Adyen`);
      }
    }
    assert.ok(successful.length > 0, 'some payments succeeded through forwarding');
    const moved = await ledgerMovements(sql, successful, 'a ledger movement for every successful payment');
    for (const r of moved) assert.equal(r.n, 1, `${r.entity_id}: successful movements`);
    const { rows: others } = await sql.query(
      `SELECT count(*)::int AS n FROM ledger.transactions t JOIN payments.payments p ON t.entity_id = p.id
       WHERE t.type = 'payment' AND t.status = 'successful' AND p.reference LIKE $1 AND p.status <> 'successful'`, [`${prefix}%`]);
    assert.equal(others[0].n, 0, 'a movement for a payment that did not succeed');
  });
});
