// The documentation a newcomer follows: every page reachable from the README, every link resolving,
// the decision records indexed, and the tables written from code as the code has them.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { ERROR_MEANINGS } from '../services/contract/error-meanings.js';
import { ERRORS } from '../services/contract/errors.js';
import { RENAMED, loadConfig } from '../services/platform/config.js';
import { VARIABLES } from '../services/platform/config-variables.js';
import { projectPath } from '../services/platform/paths.js';
import { localLinks, markdownFiles } from './docs/markdown.js';
import { anchors, renderedPages } from './docs/render.js';
import { historyLines } from './helpers/history-words.js';

const read = (file: string) => readFileSync(projectPath(file), 'utf8');

/** A link's file, relative to the project's root, and its anchor. */
function resolve(from: string, target: string): { file: string; anchor?: string } {
  const [path, anchor] = target.split('#');
  return { file: path ? normalize(join(dirname(from), decodeURI(path))) : from, anchor };
}

test('README.md stays a quickstart: a few screens long', () => {
  const lines = read('README.md').split('\n').length;
  assert.ok(lines <= 150, `README.md has ${lines} lines; move detail to a docs/ page it links`);
});

test('the pages speak of the product, not of how it was built', () => {
  assert.deepEqual(markdownFiles().flatMap((file) => historyLines(file, read(file))), []);
});

test('every link between the project\'s pages resolves, to a file and to a heading in it', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    for (const { target, line } of localLinks(read(file))) {
      const to = resolve(file, target);
      if (!existsSync(projectPath(to.file))) broken.push(`${file}:${line}: ${target} (no such file)`);
      else if (to.anchor && to.file.endsWith('.md') && !anchors(read(to.file)).has(to.anchor)) {
        broken.push(`${file}:${line}: ${target} (no heading #${to.anchor} in ${to.file})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('every page under docs/ is reachable from README.md through links', () => {
  const reached = new Set<string>();
  const queue = ['README.md'];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (reached.has(file) || !file.endsWith('.md') || !existsSync(projectPath(file)) || statSync(projectPath(file)).isDirectory()) continue;
    reached.add(file);
    queue.push(...localLinks(read(file)).map(({ target }) => resolve(file, target).file));
  }
  const unreached = markdownFiles().filter((f) => f.startsWith('docs/') && !reached.has(f));
  assert.deepEqual(unreached, [], 'link these from README.md or from a page it links');
});

test('docs/decisions.md indexes every decision record, one line each, and each record has its title', () => {
  const index = read('docs/decisions.md');
  const listed = localLinks(index).map(({ target }) => target).filter((t) => /^decisions\/.+\.md$/.test(t));
  const records = readdirSync(projectPath('docs', 'decisions')).filter((f) => f.endsWith('.md')).map((f) => `decisions/${f}`);
  assert.deepEqual(records.filter((r) => !listed.includes(r)), [], 'records missing from docs/decisions.md');
  assert.deepEqual(listed.filter((l) => !records.includes(l)), [], 'index lines without a record');
  assert.equal(new Set(listed).size, listed.length, 'a record listed twice');
  for (const record of records) {
    assert.match(record, /^decisions\/\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md$/, `${record}: named YYYY-MM-DD-slug.md`);
    assert.match(read(`docs/${record}`), /^# \S/, `${record}: its first line is "# <Title>"`);
  }
});

test('the tables written from code are as the code has them (npm run docs writes them)', () => {
  const pages = renderedPages();
  assert.ok(pages.some((p) => p.file === 'docs/configuration.md' && p.committed.includes('generated: configuration-table')));
  assert.ok(pages.some((p) => p.file === 'docs/api.md' && p.committed.includes('generated: error-codes')));
  for (const { file, committed, rendered } of pages) {
    assert.equal(committed, rendered, `${file} differs from the code: run npm run docs`);
  }
});

test('the configuration table lists exactly the variables the configuration reads', () => {
  const names = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_, name) => { if (typeof name === 'string') names.add(name); return undefined; },
  });
  loadConfig(env);
  // Read only when another is set: the SMTP account goes with SMTP_HOST.
  loadConfig(new Proxy({ SMTP_HOST: 'smtp.example.com', MAIL_FROM: 'no-reply@example.com' } as Record<string, string | undefined>, {
    get: (target, name) => { if (typeof name === 'string') names.add(name); return target[name as string]; },
  }));
  const listed = new Set(VARIABLES.flatMap((v) => v.names));
  // A renamed variable's old name is read too, and documented beside its new one.
  assert.deepEqual([...names].filter((n) => !listed.has(n) && !(n in RENAMED)).sort(), [], 'read but not in config-variables.ts');
  const cli = new Set(['SVC_URL', 'SVC_OPERATOR_TOKEN']);
  assert.deepEqual([...listed].filter((n) => !names.has(n) && !cli.has(n)).sort(), [], 'listed but never read');
});

test('every error code of the registry says what it means', () => {
  assert.deepEqual(Object.keys(ERRORS).filter((code) => !ERROR_MEANINGS[code as keyof typeof ERRORS]), []);
});
