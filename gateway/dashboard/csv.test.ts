import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvCell, toCsv } from './csv.js';

test('cells with commas, quotes and line breaks are quoted, quotes doubled', () => {
  assert.equal(csvCell('plain'), 'plain');
  assert.equal(csvCell('a,b'), '"a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell('two\nlines'), '"two\nlines"');
  assert.equal(csvCell(null), '');
  assert.equal(csvCell(undefined), '');
});

test('a text cell that a spreadsheet would read as a formula is prefixed with an apostrophe', () => {
  assert.equal(csvCell('=HYPERLINK("http://x")'), `"'=HYPERLINK(""http://x"")"`);
  assert.equal(csvCell('+1'), "'+1");
  assert.equal(csvCell('-2'), "'-2");
  assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvCell('\t=1'), "'\t=1");
  assert.equal(csvCell('a=b'), 'a=b');
});

test('numbers stay numbers, negative amounts included', () => {
  assert.equal(csvCell(-1500), '-1500');
  assert.equal(csvCell(0), '0');
  assert.equal(csvCell(true), 'true');
});

test('a table is a header line and one CRLF-ended line per row', () => {
  const csv = toCsv([{ header: 'id', value: (r: { id: string; n: number }) => r.id }, { header: 'n', value: (r) => r.n }], [
    { id: 'a', n: 1 }, { id: '=b', n: -2 },
  ]);
  assert.equal(csv, "id,n\r\na,1\r\n'=b,-2\r\n");
});
