// Code comments, test names (the runner prints them), migration and proto comments, the chart and
// the scripts speak of the product, as the pages do: none names the work item, review or sitting
// a line came from. Dated decision records (docs/decisions/) are history by design and Markdown is
// docs.test.ts's to check.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { test } from 'node:test';
import { projectPath } from '../services/platform/paths.js';
import { historyLines } from './helpers/history-words.js';
import { projectFiles } from './helpers/project-files.js';

const SOURCES = /\.(?:ts|tsx|mts|mjs|cjs|js|sql|proto|ya?ml|tpl|txt|sh|css|html)$/;
/** The list of refused words and its examples: the only files that must spell them. */
const THE_LIST = new Set(['test/helpers/history-words.ts', 'test/history-words.test.ts']);

function sources(): string[] {
  return projectFiles().filter((f) => (SOURCES.test(f) || basename(f) === 'Dockerfile') && !THE_LIST.has(f));
}

test('the scan sees the words it refuses, in every form a comment or name takes them', () => {
  for (const line of ['// read once per plan (Issue 28).', "test('the budget of issue #17', () => {", '-- red-team finding 8',
    '/* round two of the fixes */', '// written in the second session']) {
    assert.equal(historyLines('x.ts', line).length, 1, line);
  }
  for (const line of ['// a token bound to its issuer', "describe('sessions of the dashboard', () => {", '// the issuer of 2 cards']) {
    assert.deepEqual(historyLines('x.ts', line), [], line);
  }
});

test('no source file speaks of the project\'s history', () => {
  const files = sources();
  assert.ok(files.includes('services/platform/outbox.ts') && files.some((f) => f.endsWith('.sql')), 'the scan reads the sources');
  const found = files.flatMap((f) => historyLines(f, readFileSync(projectPath(f), 'utf8')));
  assert.deepEqual(found, []);
});
