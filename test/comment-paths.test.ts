// Comments that name a file lead a reader to it: every path a comment names must exist, as written
// from the project's root, from the commenting file's folder or one above it, as the tail of a
// path, or (a bare file name) somewhere in the project.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';
import { projectPath } from '../services/platform/paths.js';
import { projectFiles } from './helpers/project-files.js';

const SOURCES = /\.(ts|tsx|mjs|js|ya?ml|sh)$/;
/** Files of other projects a comment names on purpose: a library's own file or name. */
const ELSEWHERE = new Set(['nats.js', 'core/fetcher/Fetcher.d.ts', '../files/prometheus-rules.yaml']);

const COMMENT = /(?:\/\/|\/\*|^\s*\*|^\s*#)(.*)$/;
const PATH = /(?<![\w./@-])((?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|tsx|mjs|js|md|ya?ml|proto|sql|json|sh))(?![\w/])/g;

test('every file a comment names exists', () => {
  const all = projectFiles();
  const names = new Set(all.map((f) => basename(f)));
  const exists = (p: string) => existsSync(projectPath(p)) || existsSync(projectPath(p.replace(/\.js$/, '.ts')));
  const found = (from: string, p: string): boolean => {
    const ts = p.replace(/\.js$/, '.ts');
    if (!p.includes('/') && (names.has(p) || names.has(ts))) return true;
    for (let dir = dirname(from); ; dir = dirname(dir)) {
      if (exists(join(dir, p))) return true;
      if (dir === '.') break;
    }
    return all.some((f) => f.endsWith(`/${p}`) || f.endsWith(`/${ts}`));
  };
  const missing: string[] = [];
  for (const file of all.filter((f) => SOURCES.test(f))) {
    readFileSync(projectPath(file), 'utf8').split('\n').forEach((line, i) => {
      const comment = COMMENT.exec(line)?.[1];
      if (!comment) return;
      for (const [, path] of comment.matchAll(PATH)) {
        if (!ELSEWHERE.has(path!) && !found(file, path!)) missing.push(`${file}:${i + 1}: ${path}`);
      }
    });
  }
  assert.deepEqual(missing, []);
});
