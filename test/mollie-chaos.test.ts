// Money safety at Mollie under kill -9: the six parts as processes, a project's test-mode Mollie
// account pointed at the Mollie stand-in, and a burst of keyed iDEAL payments (some whose answer
// Mollie holds back past the deadline) while the payments process is killed and restarted. Clients
// retry with the same Idempotency-Key. Whatever the crash cut short: each key has one payment,
// Mollie made at most one payment per attempt (the attempt id is its Idempotency-Key), and once
// every customer pays and Mollie posts its webhooks, each payment is successful with the attempt
// Mollie made, once, with one ledger movement. An attempt the killed process never sent is sent by
// reconciliation's status query under the same key (connector.ts), never twice.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { ledgerMovements, runChaosBurst, type ChaosBurstRun } from './helpers/keyed-burst.js';
import { startMollieStandIn, type MollieStandIn } from './helpers/mollie-stand-in.js';
import { natsServerMissing } from './helpers/nats-server.js';
import { request } from './helpers/stack.js';

const PAYMENTS = 40;
const CLIENTS = 8;
const KILL_AFTER_STORED = 12;
const KEY = `test_${randomBytes(15).toString('hex')}`;

/** Mostly plain; every tenth answer held back past PROVIDER_TIMEOUT_MS (an amount of …03). */
const amountOf = (i: number) => (i % 10 === 3 ? 1003 + i * 100 : 1000 + i * 100);

const skip = natsServerMissing();

describe('payments killed (kill -9) during a keyed burst at a Mollie account, then restarted', { skip }, () => {
  let mollie: MollieStandIn;
  let run: ChaosBurstRun;

  before(async () => {
    mollie = await startMollieStandIn({ apiKeys: [KEY] });
    run = await runChaosBurst({
      merchant: 'Mollie chaos merchant', provider: 'mollie', account: 'Mollie test',
      credentials: (split) => ({ api_key: KEY, webhook_base_url: split.baseUrl, api_base_url: mollie.baseUrl }),
      tag: 'mollie', payments: PAYMENTS, clients: CLIENTS, killAfterStored: KILL_AFTER_STORED,
      body: (i) => ({
        amount: amountOf(i), currency: 'EUR', payment_method: { type: 'local', token: 'ideal', provider_code: 'mollie' },
        return_url: 'https://shop.example/done',
      }),
    });
  });
  after(async () => {
    await run?.close();
    await mollie?.close();
  });

  const meta = (p: { metadata: unknown }) => (p.metadata ?? {}) as Record<string, string>;
  const madeFor = (paymentId: string) => [...mollie.payments.values()].filter((x) => meta(x).payment_id === paymentId);

  test('every key has one payment, and Mollie made each attempt at most once', async (t) => {
    const byKey = await run.paymentsByKey();
    assert.deepEqual(run.keys.filter((k) => byKey.get(k)!.length !== 1), [], 'keys without exactly one payment');
    const ours = new Set([...byKey.values()].flat().map((p) => p.id));
    const made = [...mollie.payments.values()].filter((p) => ours.has(meta(p).payment_id));
    const perAttempt = new Map<string, number>();
    for (const p of made) perAttempt.set(meta(p).attempt_id, (perAttempt.get(meta(p).attempt_id) ?? 0) + 1);
    assert.deepEqual([...perAttempt].filter(([, n]) => n > 1), [], 'attempts Mollie made twice');
    for (const k of run.keys) {
      const o = run.outcomes.get(k)!;
      if (o.status === 201) assert.equal(o.body.id, byKey.get(k)![0].id, k);
    }
    t.diagnostic(`${made.length} payments made at Mollie; ${run.keys.filter((k) => run.outcomes.get(k)!.status !== 201).length} clients without a 201`);
  });

  test('once reconciled and paid, each payment is successful with the attempt Mollie made, with one ledger movement', async () => {
    // Reconciliation sends what the killed process never did (same key), so every payment ends up at Mollie.
    const byKey = await eventually('a Mollie payment for every one of ours', async () => {
      const now = await run.paymentsByKey();
      return [...now.values()].flat().every((p) => madeFor(p.id).length >= 1) ? now : undefined;
    }, 60_000);
    // Every customer pays, and Mollie posts each payment's id to its webhook, twice (its repeat).
    for (const p of [...mollie.payments.values()].filter((x) => meta(x).payment_id)) {
      mollie.setStatus(p.id, 'paid');
      for (let n = 0; n < 2; n++) {
        const res = await fetch(p.webhookUrl!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `id=${p.id}` });
        assert.equal(res.status, 200, await res.text());
      }
    }
    const ids = [...byKey.values()].flat().map((p) => p.id);
    await eventually('every payment successful', async () => {
      const { rows } = await run.sql.query('SELECT count(*)::int AS n FROM payments.payments WHERE id = ANY($1) AND status = $2', [ids, 'successful']);
      return rows[0].n === ids.length ? true : undefined;
    }, 30_000);
    for (const id of ids) {
      const p = (await request(run.split.baseUrl, 'GET', `/v1/payments/${id}`, { key: run.apiKey })).body;
      const successes = (p.attempts as any[]).filter((a) => a.outcome === 'success');
      const [made] = madeFor(id);
      assert.deepEqual(successes.map((a) => [a.provider_account_id, a.provider_payment_id]), [[run.accountId, made.id]], id);
    }
    const moved = await ledgerMovements(run.sql, ids, 'a ledger movement for every successful payment');
    for (const r of moved) assert.equal(r.n, 1, `${r.entity_id}: successful movements`);
  });
});
