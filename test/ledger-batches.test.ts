import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import { envelopesOf, ledgerConsumer, moneyEventsOf, startLedgerDatabase, type LedgerDatabase } from './helpers/ledger-database.js';

// The ledger consumer records the events handed to it together in one statement per batch
// (services/ledger/store.ts, recordEventMovements); these are the rules one by one kept.

let ledger: LedgerDatabase;

before(async () => {
  ledger = await startLedgerDatabase();
});
after(() => ledger?.close());

const envelope = envelopesOf('mer_batch', 'prj_batch');
const { paid, refunded } = moneyEventsOf('mer_batch', 'prj_batch');

async function transactionOf(entityId: string) {
  const { rows } = await ledger.pool.query(
    `SELECT t.type, t.amount::int, t.provider_account_id, t.payment_method, t.country,
         (SELECT array_agg(l.provider_account_id ORDER BY l.line_no)
        FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id WHERE e.transaction_id = t.id) AS line_accounts
     FROM transactions t WHERE t.entity_id = $1`,
    [entityId],
  );
  return rows;
}

test('one batch: a refund waits for a payment not yet recorded, the rest of the batch is recorded', async () => {
  const handle = ledgerConsumer(ledger.pool);
  const early = newId('pay');
  const a = paid(newId('pay'), 'pac_a');
  const waiting = refunded(early);
  const withPayment = refunded(a.data.object.id as string);
  const outcomes = await Promise.allSettled([waiting, a, withPayment, a].map((e) => handle(e)));
  assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /not recorded yet/);

  // The refund whose payment came in the same batch took the payment's provider, method and country.
  const [refund] = await transactionOf(withPayment.data.object.id as string);
  assert.deepEqual([refund.type, refund.amount, refund.provider_account_id, refund.payment_method, refund.country],
    ['refund', -1000, 'pac_a', 'card', 'DE']);
  assert.deepEqual(refund.line_accounts, ['pac_a', null]);
  assert.equal((await transactionOf(a.data.object.id as string)).length, 1, 'an event twice in a batch: one movement');
  assert.equal((await transactionOf(waiting.data.object.id as string)).length, 0);
  const claimed = await ledger.pool.query('SELECT 1 FROM consumed_events WHERE event_id = $1', [waiting.id]);
  assert.equal(claimed.rowCount, 0, 'a waiting refund is not claimed, so its redelivery records it');

  // Its payment arrives; the redelivered refund is recorded with that payment's provider account.
  await handle(paid(early, 'pac_b'));
  await handle(waiting);
  const [late] = await transactionOf(waiting.data.object.id as string);
  assert.deepEqual([late.provider_account_id, late.line_accounts], ['pac_b', ['pac_b', null]]);
});

test('a failed batch records none of its events, and their redelivery records each once', async () => {
  const failing = createPool(ledger.url, 'ledger', 1);
  await failing.end();
  const broken = ledgerConsumer(failing);
  const events = [paid(newId('pay'), 'pac_a'), paid(newId('pay'), 'pac_a')];
  const outcomes = await Promise.allSettled(events.map((e) => broken(e)));
  assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected']);
  const handle = ledgerConsumer(ledger.pool);
  await Promise.all([...events, ...events].map((e) => handle(e)));
  for (const e of events) assert.equal((await transactionOf(e.data.object.id as string)).length, 1);
});

test('a refund failed after acceptance: reversed by one adjustment, after its successful refund, whatever the order', async () => {
  const handle = ledgerConsumer(ledger.pool);
  const refundOf = (paymentId: string) => {
    const ok = refunded(paymentId);
    const r = ok.data.object;
    const failed = envelope('refund.failed', {
      ...r, status: 'failed', failure: { code: 'refund_failed', category: 'hard', message: 'failed after acceptance' },
    });
    return { id: r.id as string, ok, failed };
  };
  const figures = async (entityId: string) => (await ledger.pool.query(
    `SELECT type, status, amount::int, net_amount::int, provider_account_id FROM transactions WHERE entity_id = $1 ORDER BY type`,
    [entityId],
  )).rows.map((r) => [r.type, r.status, r.amount, r.net_amount, r.provider_account_id]);
  const reversed = [['adjustment', 'successful', 1000, 1000, 'pac_a'], ['refund', 'successful', -1000, -1000, 'pac_a']];

  // In order, then replayed: one adjustment, and the refund's nets add up to zero.
  const payment = paid(newId('pay'), 'pac_a');
  const inOrder = refundOf(payment.data.object.id as string);
  await handle(payment);
  await handle(inOrder.ok);
  await handle(inOrder.failed);
  await handle(inOrder.failed);
  assert.deepEqual(await figures(inOrder.id), reversed);
  const [{ total }] = (await ledger.pool.query(
    `SELECT sum(l.amount)::int AS total FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
     JOIN transactions t ON t.id = e.transaction_id WHERE t.entity_id = $1 AND l.account = 'provider_receivable'`, [inOrder.id],
  )).rows;
  assert.equal(total, 0, 'the provider owes what it owed before the refund');

  // The failure first: it waits (unclaimed) until the refund's success is recorded, then reverses it.
  const outOfOrder = refundOf(payment.data.object.id as string);
  await assert.rejects(handle(outOfOrder.failed), /refund rf_.* not recorded yet/);
  assert.deepEqual(await figures(outOfOrder.id), []);
  await handle(outOfOrder.ok);
  await handle(outOfOrder.failed);
  assert.deepEqual(await figures(outOfOrder.id), reversed);

  // In one batch (the first event is written at once, the rest batched behind it): recorded together.
  const other = paid(newId('pay'), 'pac_a');
  const together = refundOf(other.data.object.id as string);
  await Promise.all([other, together.ok, together.failed].map((e) => handle(e)));
  assert.deepEqual(await figures(together.id), reversed);

  // A refund refused at once was never successful: a failed refund moving nothing, as before.
  const refused = refunded(payment.data.object.id as string);
  await handle(envelope('refund.failed', { ...refused.data.object, status: 'failed', failure: { code: 'hard_decline' } }));
  assert.deepEqual(await figures(refused.data.object.id as string), [['refund', 'failed', -1000, 0, 'pac_a']]);
});
