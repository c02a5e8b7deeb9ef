import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CsvError, parseCsv } from './csv.js';

const fields = (text: string) => parseCsv(text).map((r) => r.fields);

test('plain fields, CRLF and LF line ends, a final line without a break', () => {
  assert.deepEqual(fields('a,b,c\r\n1,2,3\n4,,6'), [['a', 'b', 'c'], ['1', '2', '3'], ['4', '', '6']]);
});

test('quoted fields hold commas, line breaks and doubled quotes (RFC 4180 rules 5-7)', () => {
  const records = parseCsv('name,note\r\n"Acme, Inc.","said ""hi""\r\nthen left"\r\nlast,x\r\n');
  assert.deepEqual(records.map((r) => r.fields), [['name', 'note'], ['Acme, Inc.', 'said "hi"\r\nthen left'], ['last', 'x']]);
  assert.deepEqual(records.map((r) => r.line), [1, 2, 4]);
});

test('blank lines and a UTF-8 byte order mark are skipped; empty quoted fields stay empty', () => {
  assert.deepEqual(fields('\ufeffa,b\n\n"",x\n'), [['a', 'b'], ['', 'x']]);
});

test('malformed quoting names its line', () => {
  assert.throws(() => parseCsv('a,b\n"open,x\n'), (e: unknown) => e instanceof CsvError && e.line === 2);
  assert.throws(() => parseCsv('a,b\nx"y,z\n'), (e: unknown) => e instanceof CsvError && e.line === 2 && /unquoted/.test(e.message));
  assert.throws(() => parseCsv('"a"b,c'), (e: unknown) => e instanceof CsvError && e.line === 1);
});
