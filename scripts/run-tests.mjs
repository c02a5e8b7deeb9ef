// Runs every compiled test file with node's test runner: unit tests beside the code
// (dist/**/*.test.js) and whole-system tests under dist/test/.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir, out = []) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) find(path, out);
    else if (entry.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const filter = process.argv.slice(2);
const files = find('dist').filter((f) => filter.length === 0 || filter.some((s) => f.includes(s))).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// Node 20 applies --test-timeout to each file as a whole, not to each test: it is a file's cap. A
// file of several multi-process tests takes minutes on a loaded laptop; a hung one still ends,
// early enough that CI's whole run stays under its 30 minutes.
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-timeout=600000', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
