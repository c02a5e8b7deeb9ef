import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { after, before, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import pg from 'pg';
import { ScopeSchema } from '../proto/gen/svc/common/v1/common_pb.js';
import { CreatePaymentRequestSchema } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { PlanPaymentResponseSchema } from '../proto/gen/svc/routing/v1/routing_pb.js';
import { AttemptSettledElsewhere, commitChange } from '../services/payments/payments/commit.js';
import { newPayment } from '../services/payments/payments/new-payment.js';
import { createStore } from '../services/payments/payments/store.js';
import { approve, open } from '../services/payments/payments/transitions.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { createGroupCommit } from '../services/platform/group-commit.js';
import { row, type TableShape } from '../services/platform/row-writes.js';
import { bindingOf, isBindingConflict } from '../services/platform/idempotency-bindings.js';
import { newId } from '../services/platform/ids.js';
import { migrate } from '../services/platform/migrate.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

// The `created` commits of payments whose requests arrive together share one statement and one
// commit (services/platform/group-commit.ts), and each request still gets its own result.

let db: TestDatabase;
let pool: Pool;
/** The texts of the writes the payments store sent, in order (reads and catalog lookups left out). */
let writes: string[] = [];
/** The statement of a batch of keyed creates, to compare with a lone one's. */
let batchedCreate = '';

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 'payments', 8);
  await migrate(pool, 'payments', 'services/payments');
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as { query: unknown }).query = (config: unknown, ...rest: unknown[]) => {
    const text = typeof config === 'string' ? config : (config as { text: string }).text;
    if (/^\s*(WITH|INSERT|UPDATE)\b/i.test(text)) writes.push(text);
    return query(config, ...rest);
  };
});
after(async () => {
  await pool?.end();
  await db?.drop();
});

const scope = create(ScopeSchema, { merchantId: 'mer_gc', projectId: 'prj_gc', mode: 'test' });
const plan = create(PlanPaymentResponseSchema, {
  risk: { decisionId: 'rsk_1', score: 5, outcome: 'allow' },
  routing: {
    decisionId: 'rtd_1', rule: 'default',
    candidates: [{ providerId: 'prv_a', providerCode: 'demo_a', providerName: 'Demo A', providerAccountId: 'pac_a' }],
  },
});

/** One request's `created` commit as the orchestrator makes it: the payment, its first attempt, its key. */
function openPayment(store: ReturnType<typeof createStore>, amount: number, key?: string) {
  const req = create(CreatePaymentRequestSchema, {
    scope, amount: BigInt(amount), currency: 'EUR', paymentMethod: { type: 'card', token: 'tok_x' }, idempotencyKey: key,
  });
  const at = new Date();
  const id = newId('pay', at);
  const binding = bindingOf(CreatePaymentRequestSchema, req);
  const binds = binding && store.bindingRow(scope, { ...binding, resourceId: id }, at, 3_600_000);
  const payment = newPayment(scope, req, id, plan, at);
  return { id, payment, done: commitChange(store, open(payment, plan, { at, processingTimeMs: 1 }), { binds }) };
}

async function stored(id: string) {
  const { rows } = await pool.query(
    `SELECT p.amount, p.status, (SELECT count(*)::int FROM payment_attempts a WHERE a.payment_id = p.id) AS attempts,
       (SELECT count(*)::int FROM timeline_events t WHERE t.payment_id = p.id) AS timeline,
       (SELECT count(*)::int FROM outbox o WHERE o.aggregate_id = p.id) AS events
     FROM payments p WHERE p.id = $1`,
    [id],
  );
  return rows[0];
}

test('concurrent creates share statements, and each payment is written whole, once', async () => {
  const store = createStore(pool);
  writes = [];
  const opened = Array.from({ length: 20 }, (_, i) => openPayment(store, 1000 + i, `gc-key-${i}`));
  await Promise.all(opened.map((o) => o.done));
  // The first goes alone; the 19 that came while it was written share the next statement.
  assert.equal(writes.length, 2, writes.join('\n'));
  assert.match(writes[1], /unnest\(/);
  batchedCreate = writes[1];
  for (const [i, o] of opened.entries()) {
    const row = await stored(o.id);
    assert.deepEqual(
      { amount: row.amount, status: row.status, attempts: row.attempts, events: row.events },
      { amount: BigInt(1000 + i), status: 'created', attempts: 1, events: 1 },
    );
    assert.ok(row.timeline >= 4, `timeline of ${o.id}: ${row.timeline}`);
  }
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM idempotency_bindings WHERE idempotency_key LIKE 'gc-key-%'`);
  assert.equal(rows[0].n, 20);
  // A batched payment's rows are the rows its commit alone writes (types, JSON, times), ids aside.
  const alone = openPayment(store, 1005);
  await alone.done;
  assert.deepEqual(await written(opened[5].id), await written(alone.id));
});

/** What a payment's commit wrote, without what differs between two payments. */
async function written(id: string) {
  const { rows } = await pool.query(
    `SELECT to_jsonb(p) - '{id,created_at,updated_at}'::text[] AS payment,
       (SELECT jsonb_agg(to_jsonb(a) - '{id,payment_id,created_at,updated_at}'::text[]) FROM payment_attempts a WHERE a.payment_id = p.id) AS attempts,
       (SELECT jsonb_agg(jsonb_build_array(t.type, t.title, t.description IS NOT NULL, jsonb_typeof(t.data), t.created_at = p.created_at) ORDER BY t.id)
          FROM timeline_events t WHERE t.payment_id = p.id) AS timeline,
       (SELECT jsonb_agg(jsonb_build_array(o.type, o.payload->'data'->'object'->>'status', jsonb_typeof(o.payload))) FROM outbox o WHERE o.aggregate_id = p.id) AS events
     FROM payments p WHERE p.id = $1`,
    [id],
  );
  return rows[0];
}

test('a key bound twice in one batch, or bound before it, fails only its own request', async () => {
  const store = createStore(pool);
  await openPayment(store, 1, 'gc-taken').done;
  writes = [];
  const first = openPayment(store, 2, 'gc-lone');
  const batch = [
    openPayment(store, 3, 'gc-dup'), openPayment(store, 4, 'gc-taken'), openPayment(store, 5, 'gc-dup'),
    openPayment(store, 6), openPayment(store, 7, 'gc-other'),
  ];
  const outcomes = await Promise.allSettled([first, ...batch].map((o) => o.done));
  const statuses = outcomes.map((o) => o.status);
  // Of the two with one key, one wins (whichever is retried first), as two racing requests alone.
  assert.deepEqual([statuses[1], statuses[3]].sort(), ['fulfilled', 'rejected']);
  assert.deepEqual([statuses[0], statuses[2], statuses[4], statuses[5]], ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  for (const o of outcomes) if (o.status === 'rejected') assert.ok(isBindingConflict(o.reason), String(o.reason));
  // Nothing of the refused batch stayed, nothing was written twice, and the refused requests left no payment.
  const events = await Promise.all([first, ...batch].map(async (o) => (await stored(o.id))?.events ?? 0));
  assert.deepEqual(events, statuses.map((s) => (s === 'fulfilled' ? 1 : 0)));
  // The lone one; the batch cut before the key's second use: its first part refused, each of its
  // two alone, then its second part refused (the key is bound now), each of its three alone.
  assert.equal(writes.length, 8, writes.join('\n'));
});

test('concurrent outcomes share statements; one whose attempt was settled elsewhere fails alone', async () => {
  const store = createStore(pool);
  const opened = Array.from({ length: 8 }, (_, i) => openPayment(store, 500 + i));
  await Promise.all(opened.map((o) => o.done));
  // Reconciliation settled the fourth's attempt meanwhile.
  await pool.query(`UPDATE payment_attempts SET status = 'failed', outcome = 'timeout' WHERE payment_id = $1`, [opened[3].id]);
  writes = [];
  const approved = { result: { outcome: 'success' as const, providerPaymentId: 'x', providerCode: 'ok', providerMessage: 'OK', fee: 0n }, latencyMs: 1 };
  const outcomes = await Promise.allSettled(opened.map(({ payment }) => commitChange(
    store, approve(payment, payment.attempts[0], approved, { at: new Date() }), { ifAttemptInFlight: payment.attempts[0] },
  )));
  assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
  assert.ok((outcomes[3] as PromiseRejectedResult).reason instanceof AttemptSettledElsewhere);
  // The first alone, the refused batch of seven, each of the seven alone.
  assert.equal(writes.length, 9, writes.join('\n'));
  const { rows } = await pool.query(
    `SELECT p.id, p.status, a.status AS attempt, (SELECT count(*)::int FROM outbox o WHERE o.aggregate_id = p.id AND o.type = 'payment.successful') AS events
     FROM payments p JOIN payment_attempts a ON a.payment_id = p.id WHERE p.id = ANY($1)`,
    [opened.map((o) => o.id)],
  );
  const byId = new Map(rows.map((r) => [r.id, [r.status, r.attempt, r.events]]));
  assert.deepEqual(
    opened.map((o) => byId.get(o.id)),
    opened.map((_, i) => (i === 3 ? ['created', 'failed', 0] : ['successful', 'succeeded', 1])),
  );

  // Without a refusal, the outcomes after the first share one statement, its guards before its writes.
  const more = Array.from({ length: 6 }, (_, i) => openPayment(store, 600 + i));
  await Promise.all(more.map((o) => o.done));
  writes = [];
  await Promise.all(more.map(({ payment }) => commitChange(
    store, approve(payment, payment.attempts[0], approved, { at: new Date() }), { ifAttemptInFlight: payment.attempts[0] },
  )));
  assert.equal(writes.length, 2, writes.join('\n'));
  assert.match(writes[1], /CROSS JOIN LATERAL/);
  for (const o of more) assert.equal((await stored(o.id)).status, 'successful');
});

test('a lone commit waits for nobody and is the statement a batch of such commits is', async () => {
  const store = createStore(pool);
  writes = [];
  const o = openPayment(store, 42, 'gc-lone-42');
  await o.done;
  assert.equal(writes.length, 1);
  assert.equal(writes[0], batchedCreate);
  assert.equal((await stored(o.id)).amount, 42n);
});

/** A table of the tests' own: a note per id, and the log of every write of a note, in order. */
const NOTES: TableShape = {
  table: 'gc_notes', columns: [{ name: 'id', type: 'text' }, { name: 'body', type: 'text' }], key: ['id'], write: 'update', set: ['body'],
};
const note = (id: string, body: string) => ({ rows: [row(NOTES, [id, body])] });

test('two updates of one row in one batch both apply, in order; other rows still share a statement', async () => {
  await pool.query(`CREATE TABLE gc_notes (id text PRIMARY KEY, body text NOT NULL);
    CREATE TABLE gc_notes_log (n bigserial PRIMARY KEY, id text NOT NULL, body text NOT NULL);
    CREATE FUNCTION gc_log() RETURNS trigger LANGUAGE plpgsql AS
      $$BEGIN INSERT INTO gc_notes_log (id, body) VALUES (NEW.id, NEW.body); RETURN NEW; END$$;
    CREATE TRIGGER gc_log AFTER UPDATE ON gc_notes FOR EACH ROW EXECUTE FUNCTION gc_log();
    INSERT INTO gc_notes VALUES ('a', ''), ('b', ''), ('c', '')`);
  const commit = createGroupCommit(pool);
  writes = [];
  // The first goes alone; the next four gather while it is written: b twice among them.
  await Promise.all([note('a', 'first'), note('b', 'one'), note('c', 'other'), note('b', 'two'), note('a', 'last')].map(commit));
  const { rows: log } = await pool.query('SELECT id, body FROM gc_notes_log ORDER BY n');
  assert.deepEqual(log.map((r) => `${r.id}=${r.body}`), ['a=first', 'b=one', 'c=other', 'b=two', 'a=last']);
  const { rows } = await pool.query('SELECT id, body FROM gc_notes ORDER BY id');
  assert.deepEqual(rows.map((r) => `${r.id}=${r.body}`), ['a=last', 'b=two', 'c=other']);
  // a alone, then the batch cut where b comes again: (b, c) together, then (b, a) together.
  assert.equal(writes.length, 3, writes.join('\n'));
});

test('a batch that loses its connection fails its callers and is not retried', async () => {
  let queries = 0;
  const failing = createGroupCommit({
    query: async () => { queries++; throw new Error('Connection terminated unexpectedly'); },
  } as unknown as Pool);
  const outcomes = await Promise.allSettled([failing(note('x', '1')), failing(note('y', '2')), failing(note('z', '3'))]);
  assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected', 'rejected']);
  // The lone one, then the batch of two: its fate unknown, neither is run again alone.
  assert.equal(queries, 2);
  // One statement cannot change one row twice: a unit that would is refused before it is sent.
  await assert.rejects(failing({ rows: [...note('x', '1').rows, ...note('x', '2').rows] }), /one row twice/);
  assert.equal(queries, 2);
});

test('each commit runs in its own caller\'s context (its trace), a batch in its first caller\'s', async () => {
  const caller = new AsyncLocalStorage<string>();
  const seen: string[] = [];
  const commit = createGroupCommit({
    query: async (config: { values: string[] }) => {
      // The first column's values as an array literal: `{"a"}` alone, `{"b","c"}` together.
      const batch = config.values[0].includes(',');
      seen.push(`${batch ? 'batch' : 'alone'} in ${caller.getStore()}`);
      await new Promise((r) => setTimeout(r, 20));
      // The batch is refused, as a conflict would be: each of its commits runs again alone.
      if (batch) throw Object.assign(new pg.DatabaseError('conflict', 0, 'error'), { severity: 'ERROR' });
      return { rows: [] };
    },
  } as unknown as Pool);
  await Promise.all(['a', 'b', 'c'].map((name) => caller.run(name, () => commit(note(name, name)))));
  assert.deepEqual(seen, ['alone in a', 'batch in b', 'alone in b', 'alone in c']);
});
