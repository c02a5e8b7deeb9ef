import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arrayLiteral, row, rowKey, statementOf, type CheckShape, type TableShape } from './row-writes.js';

const items: TableShape = {
  table: 'items', columns: [{ name: 'id', type: 'text' }, { name: 'n', type: 'bigint' }], key: ['id'], write: 'insert',
};
const counts: TableShape = {
  table: 'counts', columns: [{ name: 'id', type: 'text' }, { name: 'total', type: 'bigint' }], key: ['id'],
  write: 'upsert', set: ['total'],
};
const guard: CheckShape = { columns: [{ name: 'id', type: 'text' }], sql: 'SELECT 1 FROM items WHERE id = v.id FOR UPDATE' };

test('one text serves any number of rows: the values are one array literal per column, in row order', () => {
  const one = statementOf([{ rows: [row(items, ['a', 1])] }]);
  const three = statementOf([{ rows: [row(items, ['b', 2]), row(items, ['c', 3])] }, { rows: [row(items, ['d', null])] }]);
  assert.equal(three.text, one.text);
  assert.equal(one.text, 'INSERT INTO items (id, n) SELECT v.id, v.n FROM unnest($1::text[], $2::bigint[]) AS v(id, n)');
  assert.deepEqual(three.values, ['{"b","c","d"}', '{2,3,NULL}']);
});

test('several tables and a check: the writes are CTEs, the check the main query, parameters numbered in that order', () => {
  const built = () => statementOf([
    { rows: [row(counts, ['x', 5]), row(items, ['a', 1])], check: { shape: guard, values: ['a'] } },
  ]);
  const first = built();
  assert.equal(first.text,
    'WITH w0 AS (INSERT INTO counts (id, total) SELECT v.id, v.total FROM unnest($1::text[], $2::bigint[]) AS v(id, total) '
    + 'ON CONFLICT (id) DO UPDATE SET total = EXCLUDED.total), '
    + 'w1 AS (INSERT INTO items (id, n) SELECT v.id, v.n FROM unnest($3::text[], $4::bigint[]) AS v(id, n)) '
    + 'SELECT (SELECT count(c.*) FROM unnest($5::text[]) AS v(id) CROSS JOIN LATERAL (SELECT 1 FROM items WHERE id = v.id FOR UPDATE) AS c)');
  assert.deepEqual(first.values, ['{"x"}', '{5}', '{"a"}', '{1}', '{"a"}']);
  assert.equal(built().text, first.text, 'the same shapes, the same text');
  // The same tables in another order are another statement, with its own numbering.
  const reversed = statementOf([{ rows: [row(items, ['a', 1]), row(counts, ['x', 5])] }]);
  assert.match(reversed.text, /^WITH w0 AS \(INSERT INTO items .*\$1::text\[\], \$2::bigint\[\].* INSERT INTO counts .*\$3::text\[\], \$4::bigint\[\]/);
  assert.deepEqual(reversed.values, ['{"a"}', '{1}', '{"x"}', '{5}']);
});

test('two writes of one row (by its key columns) in one statement are refused', () => {
  assert.equal(rowKey(row(items, ['a', 1])), rowKey(row(items, ['a', 2])));
  assert.notEqual(rowKey(row(items, ['a', 1])), rowKey(row(counts, ['a', 1])));
  assert.throws(() => statementOf([{ rows: [row(items, ['a', 1])] }, { rows: [row(items, ['a', 2])] }]), /two writes of one row of items/);
});

test('a jsonb column is bound as one JSON document, each value wrapped so SQL NULL and JSON null stay apart', () => {
  const events: TableShape = {
    table: 'events', columns: [{ name: 'id', type: 'text' }, { name: 'body', type: 'jsonb' }], key: ['id'], write: 'insert',
  };
  const { text, values } = statementOf([{ rows: [
    row(events, ['a', JSON.stringify({ say: 'a "quoted" \\ word' })]), row(events, ['b', null]), row(events, ['c', { n: 1 }]), row(events, ['d', 'null']),
  ] }]);
  assert.match(text, /jsonb_array_elements\(\$2::jsonb\) WITH ORDINALITY/);
  assert.equal(values[0], '{"a","b","c","d"}');
  assert.deepEqual(JSON.parse(values[1] as string), [[{ say: 'a "quoted" \\ word' }], null, [{ n: 1 }], [null]]);
});

test('an array literal quotes every string, escapes its quotes and backslashes, and leaves to node-postgres what it does not write', () => {
  assert.equal(arrayLiteral(['plain', 'say "hi"', 'back\\slash', '', 'NULL', '{a,b}', null, undefined], 'text'),
    '{"plain","say \\"hi\\"","back\\\\slash","","NULL","{a,b}",NULL,NULL}');
  assert.equal(arrayLiteral([1, -2.5, 12345678901234567890n, true, false], 'text'), '{1,-2.5,12345678901234567890,true,false}');
  assert.equal(arrayLiteral([new Date(Date.UTC(2026, 11, 7, 17, 0, 0, 123))], 'timestamptz'), '{2026-12-07T17:00:00.123Z}');
  assert.equal(arrayLiteral([new Date(0)], 'date'), undefined, 'a time for a column of another type');
  assert.equal(arrayLiteral(['a', { an: 'object' }], 'text'), undefined);
  assert.equal(arrayLiteral(['a', Buffer.from('x')], 'bytea'), undefined);
});
