import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TWIN_WAIT_MS } from '../services/ledger/index.js';
import type { Pool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import { envelopesOf, ledgerConsumer, startLedgerDatabase, type LedgerDatabase } from './helpers/ledger-database.js';

// While the legacy reader stays, a producer writes each money change twice: its internal event and
// its public one (services/ledger/money-events.ts). The ledger records the movement from the first
// to arrive; the second (its twin) still goes through the claiming statement, so a movement is
// recorded exactly once whatever the order, a restart or a second replica, but it rides on the
// next statement instead of costing a round trip of its own (services/ledger/recent-movements.ts).

let ledger: LedgerDatabase;

before(async () => {
  ledger = await startLedgerDatabase();
});
after(() => ledger?.close());

const envelope = envelopesOf('mer_twins', 'prj_twins');

/** The internal payment.decided and the public payment.successful of one change. */
function paymentChange(id: string) {
  const decided = envelope('internal.payment.decided', {
    version: 1, id, status: 'successful', amount: 5000, captured_amount: 5000, currency: 'EUR', fee_amount: 100,
    payment_method: 'card', country: 'DE', provider_id: 'prv_a', provider_code: 'demo', provider_name: 'Demo',
    provider_account_id: 'pac_a', provider_payment_id: `pp_${id}`, processing_time_ms: 12, failure_code: null,
    failure_category: null, decided_at: new Date().toISOString(),
  });
  const successful = envelope('payment.successful', {
    id, amount: 5000, currency: 'EUR', captured_amount: 5000, payment_method: { type: 'card' }, country: 'DE',
    route: { provider: { name: 'Demo' }, provider_account_id: 'pac_a', provider_payment_id: `pp_${id}` },
    fee: { amount: 100 }, processing_time_ms: 12, status: 'successful',
  });
  return { decided, successful };
}

/** The ledger's statements, counted: a consumer on this pool. */
function countingConsumer() {
  const counted = { statements: 0 };
  const db = { query: (...args: unknown[]) => { counted.statements++; return (ledger.pool.query as Function)(...args); } } as unknown as Pool;
  return { counted, handle: ledgerConsumer(db) };
}

async function recorded(paymentId: string) {
  const { rows } = await ledger.pool.query(
    `SELECT t.source_event_id, t.amount::int, (SELECT count(*)::int FROM journal_entries e WHERE e.transaction_id = t.id) AS entries
     FROM transactions t WHERE t.entity_id = $1`, [paymentId]);
  return rows;
}

const claimed = async (ids: string[]) =>
  (await ledger.pool.query('SELECT event_id FROM consumed_events WHERE event_id = ANY($1)', [ids])).rowCount;

test('a change\'s second copy rides on the next statement: one movement each, every event claimed, one statement per change', async () => {
  const { counted, handle } = countingConsumer();
  const first = paymentChange(newId('pay'));
  const second = paymentChange(newId('pay'));

  await handle(first.successful);
  assert.equal(counted.statements, 1);
  // The twin's movement is taken: it waits for the next statement rather than sending its own.
  const twin = handle(first.decided);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(counted.statements, 1, 'no statement of its own for the twin');
  await handle(second.decided);
  await twin;
  assert.equal(counted.statements, 2, 'the twin went with the next change\'s statement');
  const late = handle(second.successful);
  await late;
  assert.equal(counted.statements, 3, 'alone, the twin got its own statement after the wait');

  for (const change of [first, second]) {
    const [row, ...more] = await recorded(change.decided.data.object.id as string);
    assert.equal(more.length, 0, 'one movement per payment');
    assert.deepEqual([row.amount, row.entries], [5000, 1]);
  }
  // The movement names the copy that came first; both copies were claimed, as before.
  assert.equal((await recorded(first.decided.data.object.id as string))[0].source_event_id, first.successful.id);
  assert.equal((await recorded(second.decided.data.object.id as string))[0].source_event_id, second.decided.id);
  assert.equal(await claimed([first.successful.id, first.decided.id, second.decided.id, second.successful.id]), 4);
});

test('both copies handed at once (one relay round): the second waits for the first\'s statement, then rides', async () => {
  const { counted, handle } = countingConsumer();
  const change = paymentChange(newId('pay'));
  const next = paymentChange(newId('pay'));
  const both = Promise.all([handle(change.successful), handle(change.decided)]);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(counted.statements, 1, 'one statement for the pair so far');
  await handle(next.decided);
  await both;
  assert.equal(counted.statements, 2, 'the twin rode on the next change\'s statement');
  assert.equal((await recorded(change.decided.data.object.id as string)).length, 1);
  assert.equal(await claimed([change.successful.id, change.decided.id, next.decided.id]), 3);
});

test('a twin waits at most TWIN_WAIT_MS for company', async () => {
  const { handle } = countingConsumer();
  const change = paymentChange(newId('pay'));
  await handle(change.decided);
  const started = performance.now();
  await handle(change.successful);
  const waited = performance.now() - started;
  assert.ok(waited >= TWIN_WAIT_MS - 5 && waited < TWIN_WAIT_MS + 2000, `waited ${waited.toFixed(0)} ms`);
});

test('a public money event published before the upgrade (no internal copy) is recorded at once by the legacy reader', async () => {
  const { counted, handle } = countingConsumer();
  const legacy = paymentChange(newId('pay')).successful;
  const started = performance.now();
  await handle(legacy);
  assert.ok(performance.now() - started < TWIN_WAIT_MS, 'it did not wait as a twin does');
  assert.equal(counted.statements, 1);
  const rows = await recorded(legacy.data.object.id as string);
  assert.deepEqual(rows.map((r) => [r.source_event_id, r.amount, r.entries]), [[legacy.id, 5000, 1]]);
});

test('a ledger that restarted (nothing remembered), or another replica, handed a twin records nothing more', async () => {
  const change = paymentChange(newId('pay'));
  await countingConsumer().handle(change.decided);
  const { counted, handle } = countingConsumer();
  const started = performance.now();
  await handle(change.successful);
  assert.ok(performance.now() - started < TWIN_WAIT_MS, 'not remembered here: the claiming statement decides at once');
  assert.equal(counted.statements, 1);
  // Remembered now: a redelivery of the first copy rides (alone, after the wait) and changes nothing.
  await handle(change.decided);
  assert.equal(counted.statements, 2);
  const rows = await recorded(change.decided.data.object.id as string);
  assert.deepEqual(rows.map((r) => [r.source_event_id, r.entries]), [[change.decided.id, 1]]);
  const { rows: [r] } = await ledger.pool.query(
    'SELECT sum(redeliveries)::int AS n FROM consumed_events WHERE event_id = ANY($1)', [[change.decided.id, change.successful.id]]);
  assert.equal(r.n, 1, 'the decided event was handed again once; the public copy was new');
});

test('a statement that fails fails the twins riding on it: they are delivered again, not lost', async () => {
  const change = paymentChange(newId('pay'));
  const other = paymentChange(newId('pay'));
  let failNext = false;
  const flaky = {
    query: (...args: unknown[]) => {
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('connection lost'));
      }
      return (ledger.pool.query as Function)(...args);
    },
  } as unknown as Pool;
  const handle = ledgerConsumer(flaky);
  await handle(change.decided);
  const twin = handle(change.successful);
  failNext = true;
  const next = handle(other.decided);
  await assert.rejects(twin, /connection lost/);
  await assert.rejects(next, /connection lost/);
  assert.equal(await claimed([change.successful.id, other.decided.id]), 0);
  // Their redelivery records the other payment once and the twin as a claimed no-op.
  await Promise.all([handle(change.successful), handle(other.decided)]);
  assert.equal((await recorded(other.decided.data.object.id as string)).length, 1);
  assert.equal((await recorded(change.decided.data.object.id as string)).length, 1);
  assert.equal(await claimed([change.successful.id, other.decided.id]), 2);
});
