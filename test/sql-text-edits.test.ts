// SQL is written plain and parameterised, and never read or edited as text: no statement is taken
// apart with a regular expression, no `$N` placeholder renumbered or substituted by replacement.
// Batched writes are built from declared table shapes instead (services/platform/row-writes.ts).
// This scan over the server's sources fails on any new such edit; and it does find the old ones.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { projectPath } from '../services/platform/paths.js';

const ROOTS = ['services', 'gateway'];

// The gateway's admission queries are being rewritten as one statement per concern; until then its
// one `IDENTITY_SQL.replace` stays, in this file only.
const BEING_REPLACED = new Set(['gateway/store/rate-limits.ts']);

const SQL_WORD = '(?:INSERT|UPDATE|DELETE|SELECT|VALUES|WITH|INTO|FROM|WHERE|ON CONFLICT)';

/** What editing or reading SQL text looks like in source, each with why it is refused. */
const EDITS: Array<[RegExp, string]> = [
  [/\.replace(?:All)?\(\s*\/[^/\n]*\\\$/, 'a regular expression replacing $N placeholders'],
  [/\.replace(?:All)?\(\s*['"`]\$\d/, 'a $N placeholder replaced as a string'],
  [new RegExp(`\\.replace(?:All)?\\(\\s*['"\`][^'"\`\\n]*\\b${SQL_WORD}\\b`), 'SQL text edited by replacement'],
  [new RegExp(`\\b${SQL_WORD}\\\\s`), 'a regular expression matching SQL keywords'],
  [new RegExp(`\\\\s\\*\\(?${SQL_WORD}`), 'a regular expression matching SQL keywords'],
];

/** Each line of the source that edits or reads SQL as text, with why. */
function sqlTextEdits(source: string): string[] {
  return source.split('\n').flatMap((line, i) =>
    EDITS.filter(([pattern]) => pattern.test(line)).map(([, why]) => `${i + 1}: ${why}: ${line.trim()}`));
}

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'gen' || e.name === 'node_modules' ? [] : sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  }));
  return nested.flat();
}

test('no SQL text is parsed or edited by string replacement in the server', async () => {
  const files = (await Promise.all(ROOTS.map((r) => sources(projectPath(r))))).flat();
  assert.ok(files.length > 100, `found ${files.length} source files`);
  const found: string[] = [];
  for (const file of files) {
    const name = relative(projectPath(), file);
    if (BEING_REPLACED.has(name)) continue;
    found.push(...sqlTextEdits(await readFile(file, 'utf8')).map((f) => `${name}:${f}`));
  }
  assert.deepEqual(found, []);
});

test('the scan finds the text edits batching used to make', () => {
  const old = [
    "result = text.replace(/\\$(\\d+)/g, (_, n: string) => `$${Number(n) + offset}`);",
    "const WRITE = /^\\s*(INSERT|UPDATE|DELETE)\\b/i;",
    'const INSERT = /^\\s*INSERT\\s+INTO\\s+([\\w.]+)\\s*\\(([^)]*)\\)\\s*VALUES/is;',
    "FROM req CROSS JOIN LATERAL (${IDENTITY_SQL.replace('$1', 'req.secret_hash')}) i",
    "const scoped = text.replace('FROM outbox', 'FROM payments.outbox');",
  ];
  for (const line of old) assert.notDeepEqual(sqlTextEdits(line), [], line);
  // Escaping a merchant's search text for LIKE is a value, not SQL text.
  assert.deepEqual(sqlTextEdits("values.push(`%${f.search.replace(/[\\\\%_]/g, (c) => `\\\\${c}`)}%`);"), []);
});
