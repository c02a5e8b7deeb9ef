// SQL is written plain and parameterised, and never read or edited as text: no statement is taken
// apart with a regular expression, edited with `.replace`, or has its `$N` placeholders renumbered
// or substituted. Batched writes are built from declared table shapes instead
// (services/platform/row-writes.ts). This scan over every TypeScript source of the server, the CLI,
// the dashboard and the tests fails on any new such edit; and it does find the old ones.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { projectPath } from '../services/platform/paths.js';

const ROOTS = ['services', 'gateway', 'cli', 'dashboard', 'test'];
const THIS_FILE = 'test/sql-text-edits.test.ts';

const SQL_WORD = '(?:INSERT|UPDATE|DELETE|SELECT|VALUES|WITH|INTO|FROM|WHERE|ON CONFLICT)';

/** What editing or reading SQL text looks like in source, each with why it is refused. */
const EDITS: Array<[RegExp, string]> = [
  [/\b\w*(?:sql|SQL|Sql)\w*\s*\.replace(?:All)?\(/, 'a statement edited with .replace'],
  [/\.replace(?:All)?\(\s*\/\\\$\(?\\d/, 'a regular expression replacing $N placeholders'],
  [/\.replace(?:All)?\(\s*['"`]\$\d/, 'a $N placeholder replaced as a string'],
  [new RegExp(`\\.replace(?:All)?\\(\\s*['"\`][^'"\`\\n]*\\b${SQL_WORD}\\b`), 'SQL text edited by replacement'],
];

/** Reading statements with regular expressions: refused in the product; a test may classify what it saw. */
const READS: Array<[RegExp, string]> = [
  [new RegExp(`\\b${SQL_WORD}\\\\s`), 'a regular expression matching SQL keywords'],
  [new RegExp(`\\\\s\\*\\(?${SQL_WORD}`), 'a regular expression matching SQL keywords'],
];

/** Each line of the source that edits or reads SQL as text, with why. */
function sqlTextEdits(source: string, inProduct = true): string[] {
  const refused = inProduct ? [...EDITS, ...READS] : EDITS;
  return source.split('\n').flatMap((line, i) =>
    refused.filter(([pattern]) => pattern.test(line)).map(([, why]) => `${i + 1}: ${why}: ${line.trim()}`));
}

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'gen' || e.name === 'node_modules' ? [] : sources(path);
    return e.name.endsWith('.ts') || e.name.endsWith('.tsx') ? [path] : [];
  }));
  return nested.flat();
}

test('no SQL text is parsed or edited by string replacement anywhere', async () => {
  const files = (await Promise.all(ROOTS.map((r) => sources(projectPath(r))))).flat();
  assert.ok(files.length > 100, `found ${files.length} source files`);
  const found: string[] = [];
  for (const file of files) {
    const name = relative(projectPath(), file);
    if (name === THIS_FILE) continue;
    found.push(...sqlTextEdits(await readFile(file, 'utf8'), !name.startsWith('test/')).map((f) => `${name}:${f}`));
  }
  assert.deepEqual(found, []);
});

test('the scan finds the text edits batching and admission used to make', () => {
  const old = [
    "result = text.replace(/\\$(\\d+)/g, (_, n: string) => `$${Number(n) + offset}`);",
    "const WRITE = /^\\s*(INSERT|UPDATE|DELETE)\\b/i;",
    'const INSERT = /^\\s*INSERT\\s+INTO\\s+([\\w.]+)\\s*\\(([^)]*)\\)\\s*VALUES/is;',
    "FROM req CROSS JOIN LATERAL (${IDENTITY_SQL.replace('$1', 'req.secret_hash')}) i",
    "where.push(sql.replace('?', `$${values.length}`));",
    "const scoped = text.replace('FROM outbox', 'FROM payments.outbox');",
  ];
  for (const line of old) assert.notDeepEqual(sqlTextEdits(line), [], line);
  // Escaping a merchant's search text for LIKE is a value, not SQL text; other `$` replacements are not SQL.
  assert.deepEqual(sqlTextEdits("values.push(`%${f.search.replace(/[\\\\%_]/g, (c) => `\\\\${c}`)}%`);"), []);
  assert.deepEqual(sqlTextEdits("name.replace(/([a-z])([A-Z])/g, '$1_$2')"), []);
  assert.deepEqual(sqlTextEdits("expr.replace(/\\$__range/g, '6h')"), []);
});
