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
function run(list, env = process.env) {
  const result = spawnSync(
    process.execPath,
    ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-timeout=600000', ...list],
    { stdio: 'inherit', env },
  );
  return result.status ?? 1;
}

// The all-in-one parts call each other directly (IN_PROCESS_CALLS=direct, services/platform/
// direct-transport.ts). These files run a second time with Connect's router transport, which
// encodes every call as gRPC does, so that both ways are shown to keep money moving at most once,
// refusals, error mapping and traces alike. A run already given a mode runs once.
const BOTH_WAYS = [
  'test/idempotency.test.js', 'test/idempotency-bindings.test.js', 'test/bad-input.test.js',
  'test/contract-errors.test.js', 'test/gateway-failures.test.js', 'test/tracing.test.js',
];
const status = run(files);
const again = process.env.IN_PROCESS_CALLS ? [] : files.filter((f) => BOTH_WAYS.some((b) => f.endsWith(b)));
if (again.length > 0) console.log(`# again with IN_PROCESS_CALLS=router: ${again.join(' ')}`);
const routerStatus = again.length > 0 ? run(again, { ...process.env, IN_PROCESS_CALLS: 'router' }) : 0;
process.exit(status || routerStatus);
