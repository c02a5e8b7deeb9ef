// Typed-row writes (services/platform/row-writes.ts) on real Postgres: rows of any number go in one
// statement, in order, and every column's values arrive as they were given: a jsonb column's JSON
// text, objects, SQL NULL and JSON null apart; text with quotes, backslashes, braces and commas;
// times to the millisecond; integers beyond 2^53 and booleans.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { row, writeRows, type TableShape } from '../services/platform/row-writes.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

const EVENTS: TableShape = {
  table: 'events',
  columns: [{ name: 'id', type: 'text' }, { name: 'at', type: 'timestamptz' }, { name: 'total', type: 'bigint' },
    { name: 'ok', type: 'boolean' }, { name: 'note', type: 'text' }],
  key: ['id'],
  write: 'insert',
};

const NOTES: TableShape = {
  table: 'notes',
  columns: [{ name: 'id', type: 'text' }, { name: 'n', type: 'bigint' }, { name: 'body', type: 'jsonb' }],
  key: ['id'],
  write: 'upsert',
  set: ['n', 'body'],
};

describe('typed-row writes', () => {
  let db: TestDatabase;
  let client: pg.Client;

  before(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query('CREATE TABLE notes (id text PRIMARY KEY, n bigint, body jsonb)');
    await client.query('CREATE TABLE events (id text PRIMARY KEY, at timestamptz, total bigint, ok boolean, note text)');
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  it('writes every row with its own values, jsonb as given, in one statement whatever the number', async () => {
    const tricky = { say: 'a "quoted" \\ word', nested: [1, { deep: null }], unicode: 'é €' };
    await writeRows(client, [
      row(NOTES, ['a', 1, JSON.stringify(tricky)]),
      row(NOTES, ['b', 2, null]),
      row(NOTES, ['c', 3, 'null']),
      row(NOTES, ['d', 4, { n: 4 }]),
      row(NOTES, ['e', null, '"just a string"']),
    ]);
    await writeRows(client, [row(NOTES, ['f', 6, '[]'])]);
    const { rows } = await client.query('SELECT id, n::int, body, body IS NULL AS sql_null FROM notes ORDER BY id');
    assert.deepEqual(rows, [
      { id: 'a', n: 1, body: tricky, sql_null: false },
      { id: 'b', n: 2, body: null, sql_null: true },
      { id: 'c', n: 3, body: null, sql_null: false },
      { id: 'd', n: 4, body: { n: 4 }, sql_null: false },
      { id: 'e', n: null, body: 'just a string', sql_null: false },
      { id: 'f', n: 6, body: [], sql_null: false },
    ]);
  });

  it('an upsert takes the new values of the rows that exist', async () => {
    await writeRows(client, [row(NOTES, ['a', 10, { v: 2 }]), row(NOTES, ['g', 7, { v: 1 }])]);
    const { rows } = await client.query(`SELECT id, n::int, body FROM notes WHERE id IN ('a', 'g') ORDER BY id`);
    assert.deepEqual(rows, [{ id: 'a', n: 10, body: { v: 2 } }, { id: 'g', n: 7, body: { v: 1 } }]);
  });

  it('text, times, big integers and booleans arrive exactly as given', async () => {
    const notes = ['say "hi"', 'back\\slash \\"', '{a,b}', '', 'NULL', 'é €\ttab', null];
    const at = new Date(Date.UTC(2026, 11, 7, 17, 0, 0, 123));
    await writeRows(client, notes.map((note, i) =>
      row(EVENTS, [`e${i}`, i === 0 ? null : new Date(at.getTime() + i), 9007199254740993n + BigInt(i), i % 2 === 0, note])));
    const { rows } = await client.query('SELECT id, at, total::text, ok, note FROM events ORDER BY id');
    assert.deepEqual(rows, notes.map((note, i) => ({
      id: `e${i}`, at: i === 0 ? null : new Date(at.getTime() + i), total: String(9007199254740993n + BigInt(i)), ok: i % 2 === 0, note,
    })));
  });
});
