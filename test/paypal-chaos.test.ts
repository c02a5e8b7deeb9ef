// Money safety at PayPal under kill -9: the six parts as processes, a project's test-mode PayPal
// account pointed at the PayPal stand-in, and a burst of keyed wallet payments (some whose order
// PayPal makes but answers past the deadline) while the payments process is killed and restarted.
// Clients retry with the same Idempotency-Key. Then every customer approves at PayPal and PayPal's
// webhooks arrive, each twice. Whatever the crash cut short: each key has one payment, PayPal made
// at most one order per attempt and captured each order at most once, a payment whose order was
// captured is successful with that very attempt, and the ledger has one movement per success.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { ledgerMovements, runChaosBurst, type ChaosBurstRun } from './helpers/keyed-burst.js';
import { natsServerMissing } from './helpers/nats-server.js';
import { signedEvent, startPayPalStandIn, type PayPalStandIn } from './helpers/paypal-stand-in.js';
import { request } from './helpers/stack.js';

const PAYMENTS = 30;
const CLIENTS = 6;
const KILL_AFTER_STORED = 10;
const CLIENT_ID = `AChaos${randomBytes(10).toString('hex')}`;
const SECRET = `EChaos${randomBytes(10).toString('hex')}`;
const WEBHOOK_ID = `WH${randomBytes(8).toString('hex').toUpperCase()}`;

const amountOf = (i: number) => 1000 + i;
const skip = natsServerMissing();

describe('payments killed (kill -9) during a keyed burst of PayPal wallet payments, then restarted', { skip }, () => {
  let pp: PayPalStandIn;
  let run: ChaosBurstRun;

  before(async () => {
    pp = await startPayPalStandIn({ clients: { [CLIENT_ID]: SECRET }, webhookIds: { [CLIENT_ID]: WEBHOOK_ID } });
    pp.slowAnswerMs = 1_500;
    // Every tenth order is made at once and answered past PROVIDER_TIMEOUT_MS: its answer is lost.
    for (let i = 3; i < PAYMENTS; i += 10) pp.slowAmounts.add((amountOf(i) / 100).toFixed(2));
    run = await runChaosBurst({
      merchant: 'PayPal chaos merchant', provider: 'paypal', account: 'PayPal sandbox',
      credentials: () => ({ client_id: CLIENT_ID, client_secret: SECRET, webhook_id: WEBHOOK_ID, api_base_url: pp.baseUrl }),
      tag: 'pp', payments: PAYMENTS, clients: CLIENTS, killAfterStored: KILL_AFTER_STORED,
      body: (i) => ({ amount: amountOf(i), currency: 'EUR', payment_method: { type: 'wallet' }, return_url: 'https://shop.example/back' }),
    });
  });
  after(async () => {
    await run?.close();
    await pp?.close();
  });

  const ordersFor = (paymentId: string) => [...pp.orders.values()].filter((o) => o.purchase_units[0].reference_id === paymentId);
  const capturesOf = (orderId: string) => pp.orders.get(orderId)!.purchase_units[0].payments?.captures ?? [];

  test('every key has one payment, and PayPal made at most one order per attempt', async () => {
    const byKey = await run.paymentsByKey();
    assert.deepEqual(run.keys.filter((k) => byKey.get(k)!.length !== 1), [], 'keys without exactly one payment');
    const perAttempt = new Map<string, number>();
    for (const o of pp.orders.values()) perAttempt.set(o.purchase_units[0].custom_id!, (perAttempt.get(o.purchase_units[0].custom_id!) ?? 0) + 1);
    assert.deepEqual([...perAttempt].filter(([, n]) => n > 1), [], 'attempts PayPal made two orders for');
    for (const k of run.keys) {
      const o = run.outcomes.get(k)!;
      if (o.status === 201) assert.equal(o.body.id, byKey.get(k)![0].id, k);
    }
  });

  test('every customer approves and PayPal\'s webhooks arrive twice: each order captured once, each such payment successful with its attempt, one ledger movement each', async () => {
    // Reconciliation makes (by the repeated create) the orders the killed process never sent.
    const byKey = await eventually('an order at PayPal for every payment', async () => {
      const now = await run.paymentsByKey();
      return [...now.values()].flat().every((p) => ordersFor(p.id).length === 1) ? now : undefined;
    }, 60_000);
    for (const o of pp.orders.values()) {
      if (!run.keys.some((k) => byKey.get(k)![0].id === o.purchase_units[0].reference_id)) continue;
      const approved = signedEvent('CHECKOUT.ORDER.APPROVED', { ...pp.approve(o.id) }, WEBHOOK_ID);
      for (let n = 0; n < 2; n++) {
        const res = await fetch(`${run.split.baseUrl}/providers/paypal/webhooks/${run.accountId}`, { method: 'POST', headers: approved.headers, body: approved.body });
        assert.equal(res.status, 200, `${o.id}: ${await res.text()}`);
      }
    }
    for (const k of run.keys) {
      const [ours] = byKey.get(k)!;
      const [order] = ordersFor(ours.id);
      assert.equal(capturesOf(order.id).length, 1, `${k}: captures of ${order.id}`);
      const p = await eventually(`${k} successful`, async () => {
        const now = (await request(run.split.baseUrl, 'GET', `/v1/payments/${ours.id}`, { key: run.apiKey })).body;
        return now.status === 'successful' ? now : undefined;
      }, 30_000);
      const successes = (p.attempts as any[]).filter((a) => a.outcome === 'success');
      assert.deepEqual(successes.map((a) => [a.id, a.provider_payment_id]), [[order.purchase_units[0].custom_id, order.id]], k);
    }
    const ids = [...byKey.values()].flat().map((p) => p.id);
    const moved = await ledgerMovements(run.sql, ids, 'a ledger movement for every payment');
    for (const r of moved) assert.equal(r.n, 1, `${r.entity_id}: successful movements`);
  });
});
