import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

// Records every module a process loads into the file named by LOADED_MODULES_FILE, one URL a line,
// for tests that check what a command loads (test/cli-start.test.ts). Given to node as
// `--import <this file>`: on the main thread it registers itself as the resolve hook (which sees
// every ES module and every package an ES module imports) and, at exit, adds the CommonJS modules
// node's require loaded (a package's own require() calls never pass the hook).

const out = process.env.LOADED_MODULES_FILE;

type Resolved = { url: string };

export async function resolve(specifier: string, context: unknown, next: (s: string, c: unknown) => Promise<Resolved>): Promise<Resolved> {
  const resolved = await next(specifier, context);
  if (out) appendFileSync(out, `${resolved.url}\n`);
  return resolved;
}

if (isMainThread && out) {
  register(import.meta.url);
  process.on('exit', () => {
    const cjs = Object.keys(createRequire(import.meta.url).cache);
    appendFileSync(out, cjs.map((path) => `file://${path}\n`).join(''));
  });
}
