import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import type { Pool } from '../services/platform/db.js';
import { newId } from '../services/platform/ids.js';
import { ledgerConsumer, moneyEventsOf, startLedgerDatabase, type LedgerDatabase } from './helpers/ledger-database.js';

// The ledger's batch statement (services/ledger/store.ts, recordEventMovements) finds each refund's
// payment by the movement key's index, also before Postgres has statistics for the transactions
// table: a fresh installation's first minutes, until autovacuum analyzes it. Written as a join, it
// was planned then as a scan of every transaction for every row of the batch.

let ledger: LedgerDatabase;

before(async () => {
  ledger = await startLedgerDatabase();
  // No statistics for the whole test, as before autovacuum's first analyze.
  await ledger.pool.query('ALTER TABLE transactions SET (autovacuum_enabled = false)');
});
after(() => ledger?.close());

const { paid, refunded } = moneyEventsOf('mer_plan', 'prj_plan');

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: PlanNode[] }

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The plan Postgres runs `statement` with, executed and rolled back. */
async function executedPlan(statement: pg.QueryConfig): Promise<PlanNode[]> {
  const client = await ledger.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, values: statement.values });
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

test('a batch of refunds reads its payments by index, not every transaction, before the table has statistics', async () => {
  const handle = ledgerConsumer(ledger.pool);
  const payments = Array.from({ length: 600 }, () => paid(newId('pay'), 'pac_plan'));
  for (let i = 0; i < payments.length; i += 100) await Promise.all(payments.slice(i, i + 100).map((e) => handle(e)));
  const { rows: [stats] } = await ledger.pool.query(
    "SELECT count(*)::int AS columns FROM pg_stats WHERE schemaname = 'ledger' AND tablename = 'transactions'");
  assert.equal(stats.columns, 0, 'the table has no statistics');

  let statement: pg.QueryConfig | undefined;
  const capturing = {
    query: (config: pg.QueryConfig, ...rest: unknown[]) => {
      if (config?.name === 'ledger-record-movements') statement = config;
      return (ledger.pool.query as (...args: unknown[]) => unknown)(config, ...rest);
    },
  } as unknown as Pool;
  const refunds = payments.slice(0, 40).map((p) => refunded(p.data.object.id as string));
  const handleRefund = ledgerConsumer(capturing);
  await Promise.all(refunds.map((e) => handleRefund(e)));
  assert.ok(statement, 'the consumer ran its batch statement');

  const plan = await executedPlan(statement);
  const onTransactions = plan.filter((n) => n['Relation Name'] === 'transactions' && n['Node Type'] !== 'ModifyTable');
  assert.deepEqual(onTransactions.filter((n) => n['Node Type'] === 'Seq Scan'), [], 'no scan of the whole table');
  const read = onTransactions.reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
  assert.ok(read <= refunds.length, `rows read from transactions: ${read}, for ${refunds.length} refunds`);
});
