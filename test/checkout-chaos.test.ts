// Money safety at Checkout.com under kill -9: the six parts as processes, a project's test-mode
// Checkout.com account pointed at the Checkout.com stand-in, and a burst of keyed card payments
// (some whose answer Checkout.com holds back past the deadline, some soft-declined there and failed
// over to a demo provider) while the payments process is killed and restarted. Clients retry with
// the same Idempotency-Key. Whatever the crash cut short: each key has one payment, Checkout.com
// made at most one payment per attempt and approved at most one per payment, a payment it approved
// is successful here with that very attempt, and the ledger has one movement per successful payment.
// An attempt the killed process never sent stays open (its client gets idempotency_in_progress):
// without the card token, reconciliation can only read Checkout.com's payment list, and a payment
// missing from it is taken as never received only after the list's settle window (connector.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sandboxKey, startCheckoutStandIn, type CheckoutStandIn } from './helpers/checkout-stand-in.js';
import { eventually } from './helpers/eventually.js';
import { ledgerMovements, runChaosBurst, type ChaosBurstRun } from './helpers/keyed-burst.js';
import { natsServerMissing } from './helpers/nats-server.js';
import { request } from './helpers/stack.js';

const PAYMENTS = 40;
const CLIENTS = 8;
const KILL_AFTER_STORED = 12;
const KEY = sandboxKey();

/** Mostly approvals; a lost answer (held back past PROVIDER_TIMEOUT_MS) and a soft decline among them. */
const tokenOf = (i: number) => (i % 10 === 3 ? 'tok_standin_slow' : i % 10 === 7 ? 'tok_standin_declined_20005' : `tok_chaos${i}`);

const skip = natsServerMissing();

describe('payments killed (kill -9) during a keyed burst at a Checkout.com account, then restarted', { skip }, () => {
  let cko: CheckoutStandIn;
  let run: ChaosBurstRun;

  before(async () => {
    cko = await startCheckoutStandIn({ secretKeys: [KEY] });
    cko.slowAnswerMs = 1_500;
    run = await runChaosBurst({
      merchant: 'Checkout.com chaos merchant', provider: 'checkout', account: 'Checkout.com sandbox',
      credentials: () => ({ secret_key: KEY, processing_channel_id: 'pc_chaos', webhook_signature_key: 'whsk', api_base_url: cko.baseUrl }),
      tag: 'cko', payments: PAYMENTS, clients: CLIENTS, killAfterStored: KILL_AFTER_STORED,
      body: (i) => ({ amount: 1000 + i, currency: 'EUR', payment_method: { type: 'card', token: tokenOf(i) } }),
    });
  });
  after(async () => {
    await run?.close();
    await cko?.close();
  });

  const OPEN = new Set(['created', 'pending', 'processing']);
  /** Checkout.com's payments for one of ours (by the metadata the connector sends). */
  const madeFor = (paymentId: string) => [...cko.payments.values()].filter((x) => x.metadata.payment_id === paymentId);

  test('every key has one payment, and Checkout.com made each attempt at most once and approved each payment at most once', async (t) => {
    const byKey = await run.paymentsByKey();
    assert.deepEqual(run.keys.filter((k) => byKey.get(k)!.length !== 1), [], 'keys without exactly one payment');
    const ours = new Set([...byKey.values()].flat().map((p) => p.id));
    const made = [...cko.payments.values()].filter((p) => ours.has(p.metadata.payment_id));
    const perAttempt = new Map<string, number>();
    for (const p of made) perAttempt.set(p.reference, (perAttempt.get(p.reference) ?? 0) + 1);
    assert.deepEqual([...perAttempt].filter(([, n]) => n > 1), [], 'attempts Checkout.com made twice');
    const approvedPer = new Map<string, number>();
    for (const p of made.filter((x) => x.approved)) approvedPer.set(p.metadata.payment_id, (approvedPer.get(p.metadata.payment_id) ?? 0) + 1);
    assert.deepEqual([...approvedPer].filter(([, n]) => n > 1), [], 'payments Checkout.com approved twice');
    // A client without a 201 is one whose payment is still open: see the next test for why that is safe.
    for (const k of run.keys) {
      const o = run.outcomes.get(k)!;
      if (o.status === 201) assert.equal(o.body.id, byKey.get(k)![0].id, k);
      else assert.ok(OPEN.has(byKey.get(k)![0].status), `${k} ended ${o.status} with its payment ${byKey.get(k)![0].status}`);
    }
    t.diagnostic(`${made.length} payments made at Checkout.com, ${approvedPer.size} approved; `
      + `${run.keys.filter((k) => run.outcomes.get(k)!.status !== 201).length} clients without a 201`);
  });

  test('once reconciled, a payment Checkout.com approved is successful with that attempt; one left open was never received there', async () => {
    // Reconciliation asks the payment list by reference: what Checkout.com received is decided at once.
    // An attempt the killed process never sent is not listed, and stays open for the list's settle window.
    const byKey = await eventually('every payment decided or waiting on an attempt Checkout.com never received', async () => {
      const now = await run.paymentsByKey();
      const waiting = [...now.values()].flat().filter((p) => OPEN.has(p.status));
      return waiting.every((p) => madeFor(p.id).length === 0) ? now : undefined;
    }, 60_000);
    for (const k of run.keys) {
      const [ours] = byKey.get(k)!;
      const p = (await request(run.split.baseUrl, 'GET', `/v1/payments/${ours.id}`, { key: run.apiKey })).body;
      const approved = madeFor(p.id).find((x) => x.approved);
      const successes = (p.attempts as any[]).filter((a) => a.outcome === 'success');
      assert.ok(successes.length <= 1, `${k}: ${successes.length} successful attempts`);
      if (approved) {
        assert.equal(p.status, 'successful', `${k}: approved at Checkout.com but ${p.status}`);
        assert.deepEqual(successes.map((a) => [a.provider_account_id, a.provider_payment_id]), [[run.accountId, approved.id]], k);
      } else {
        assert.ok(successes.every((a) => a.provider_account_id !== run.accountId), `${k}: a success at Checkout.com it never approved`);
      }
    }
    const { rows } = await run.sql.query(
      `SELECT p.id, p.status, count(t.id) FILTER (WHERE t.status = 'successful')::int AS successful
       FROM payments.payments p
       LEFT JOIN ledger.transactions t ON t.type = 'payment' AND t.entity_type = 'payment' AND t.entity_id = p.id
       WHERE p.reference LIKE $1 GROUP BY p.id, p.status`, [`${run.prefix}%`]);
    const successful = rows.filter((r) => r.status === 'successful').map((r) => r.id);
    const moved = await ledgerMovements(run.sql, successful, 'a ledger movement for every successful payment');
    for (const r of moved) assert.equal(r.n, 1, `${r.entity_id}: successful movements`);
    assert.ok(rows.every((r) => r.status === 'successful' || r.successful === 0), 'a movement for a payment that did not succeed');
  });
});
