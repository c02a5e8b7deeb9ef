// SQL is written as plain, parameterised text and never built or edited by replacing text in it
// (a `.replace` on a statement, placeholders renumbered by a regular expression): such editing is
// invisible to anyone reading the statement and breaks silently when the text changes. This scans
// every TypeScript source of the server, the CLI and the tests.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '../../..');
const FOLDERS = ['gateway', 'services', 'cli', 'dashboard', 'test'];

// The group commit still merges statements by rewriting their placeholders; batching by typed rows
// replaces it. Listed so the scan covers everything else now; an entry whose file no longer edits
// SQL text fails the test until it is taken off.
const NOT_YET: Record<string, number> = {
  'services/platform/group-commit.ts': 1,
  'services/platform/db.ts': 1,
};

const EDITS: Array<[string, RegExp]> = [
  // IDENTITY_SQL.replace(…), sql.replace('?', …)
  ['a statement edited with .replace', /\b\w*(?:sql|SQL|Sql)\w*\s*\.replace(?:All)?\(/],
  // text.replace(/\$(\d+)/g, …)
  ['placeholders renumbered', /\.replace(?:All)?\(\s*\/\\\$\(?\\d/],
  // .replace('$1', …)
  ['a placeholder replaced', /\.replace(?:All)?\(\s*['"`]\$\d/],
];

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'gen' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function editsIn(text: string): string[] {
  return text.split('\n').flatMap((line, i) => EDITS.filter(([, pattern]) => pattern.test(line)).map(([what]) => `line ${i + 1}: ${what}`));
}

test('no SQL is built or edited by replacing text', () => {
  const found: string[] = [];
  for (const folder of FOLDERS) {
    for (const path of sources(join(ROOT, folder))) {
      const name = relative(ROOT, path);
      if (name === 'test/sql-text-edits.test.ts') continue;
      const edits = editsIn(readFileSync(path, 'utf8'));
      if (name in NOT_YET) assert.equal(edits.length, NOT_YET[name], `${name}: ${edits.join('; ') || 'no edits left: take it off the list'}`);
      else found.push(...edits.map((e) => `${name} ${e}`));
    }
  }
  assert.deepEqual(found, []);
});

test('the scan finds each kind of edit', () => {
  assert.equal(editsIn("FROM (${IDENTITY_SQL.replace('$1', 'req.secret_hash')}) i").length, 2);
  assert.equal(editsIn("where.push(sql.replace('?', `$${values.length}`));").length, 1);
  assert.equal(editsIn('const perRow = text.replace(/\\$(\\d+)/g, (_, n) => `v.p${n}`);').length, 1);
  assert.deepEqual(editsIn("name.replace(/([a-z])([A-Z])/g, '$1_$2')"), []);
  assert.deepEqual(editsIn("expr.replace(/\\$__range/g, '6h')"), []);
});
