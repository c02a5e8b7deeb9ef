import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { changedFiles, copyCheckout, fileTimes, npmStart, run } from './helpers/build-copy.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { exitOf, freePort, waitForHttp } from './helpers/processes.js';

// What `npm start` builds before it serves, on a copy of this checkout as a new clone has it: a
// first build from nothing, then starts that compile nothing and skip vite (a failed start
// included), a changed dashboard source or a shared file that rebuilds what reads it, deleted
// outputs written again, and `npx svc` in the clone that never builds. Figures are printed, not judged.

const work = mkdtempSync(join(tmpdir(), 'svc-start-build-'));
const tree = join(work, 'clone');
const build = () => run(process.execPath, ['scripts/build.mjs'], tree);
let database: TestDatabase;

before(async () => {
  copyCheckout(tree);
  database = await createTestDatabase();
});
after(async () => {
  await database?.drop();
  rmSync(work, { recursive: true, force: true });
});

/** A measured figure, with how busy the machine was: a loaded machine stretches every one. */
function figure(line: string): void {
  console.log(`# ${line} (load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores)`);
}

function bundle(): string {
  const assets = join(tree, 'dist', 'dashboard', 'assets');
  return readdirSync(assets).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(assets, f), 'utf8')).join('\n');
}

test('the first build compiles everything; a second of the unchanged clone writes nothing and skips vite', async () => {
  const cold = await build();
  assert.equal(cold.code, 0, cold.output);
  assert.match(cold.output, /build: server compiled/);
  assert.match(cold.output, /build: dashboard built/);
  assert.ok(existsSync(join(tree, 'dist', 'all-in-one', 'main.js')) && existsSync(join(tree, 'dist', 'dashboard', 'index.html')));
  figure(`cold build (no dist/): ${cold.seconds.toFixed(1)} s`);

  const written = fileTimes(tree);
  const warm = await build();
  assert.equal(warm.code, 0, warm.output);
  assert.match(warm.output, /build: server up to date/);
  assert.match(warm.output, /build: dashboard unchanged, skipped/);
  assert.deepEqual(changedFiles(written, fileTimes(tree)), [], 'a build of an unchanged tree writes nothing in dist/');
  figure(`warm build (nothing changed): ${warm.seconds.toFixed(1)} s`);
});

test('a start that fails (port in use) builds nothing, and the next start serves without building', async () => {
  const port = await freePort();
  const env = { DATABASE_URL: database.url, PORT: String(port), DATA_DIR: join(work, 'data') };
  const written = fileTimes(tree);
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
  try {
    const failing = npmStart(tree, env);
    assert.equal(await exitOf(failing, 120_000), 1, failing.output());
    assert.match(failing.output(), new RegExp(`port ${port} .*already in use`));
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
  const started = performance.now();
  const serving = npmStart(tree, env);
  try {
    await waitForHttp(serving, `http://127.0.0.1:${port}/healthz`, 60_000);
    figure(`restart, from npm start to /healthz answering: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    assert.match(serving.output(), /build: server up to date/);
    assert.match(serving.output(), /build: dashboard unchanged, skipped/);
  } finally {
    await serving.stop();
  }
  assert.deepEqual(changedFiles(written, fileTimes(tree)), [], 'neither start wrote in dist/');
});

test('a changed dashboard source rebuilds the dashboard and compiles nothing of the server', async () => {
  appendFileSync(join(tree, 'dashboard', 'src', 'main.tsx'), "\n(globalThis as { buildProbe?: string }).buildProbe = 'probe-7f3a';\n");
  const written = fileTimes(tree);
  const rebuilt = await build();
  assert.equal(rebuilt.code, 0, rebuilt.output);
  assert.match(rebuilt.output, /build: server up to date/);
  assert.match(rebuilt.output, /build: dashboard built \(.*dashboard\/src\/main\.tsx changed\)/);
  assert.match(bundle(), /probe-7f3a/, 'the new bundle has the change');
  const changed = changedFiles(written, fileTimes(tree));
  assert.deepEqual(changed.filter((f) => !f.startsWith('dist/dashboard/') && f !== 'dist/.dashboard-build.json'), []);
});

test('a changed and a new server file are compiled, not everything, and the dashboard is skipped', async () => {
  appendFileSync(join(tree, 'gateway', 'edge', 'request-log.ts'), '\n// A change only the server reads.\n');
  writeFileSync(join(tree, 'gateway', 'edge', 'build-probe.ts'), 'export const buildProbe = 1;\n');
  const written = fileTimes(tree);
  const rebuilt = await build();
  assert.equal(rebuilt.code, 0, rebuilt.output);
  assert.match(rebuilt.output, /build: server compiled \(\d+\.\d s\)/, 'no reason to compile everything');
  assert.match(rebuilt.output, /build: dashboard unchanged, skipped/);
  const rewritten = changedFiles(written, fileTimes(tree));
  assert.ok(rewritten.includes('dist/gateway/edge/request-log.js'), rewritten.join('\n'));
  assert.ok(rewritten.includes('dist/gateway/edge/build-probe.js'), rewritten.join('\n'));
  // tsc writes again the file and those that import it (their output may depend on it); the
  // services never import the gateway, and the dashboard was not built.
  assert.deepEqual(rewritten.filter((f) => f.startsWith('dist/services/') || f.startsWith('dist/dashboard/')), []);
  figure(`one gateway file changed, one added: ${rewritten.length} of ${written.size} files in dist/ written, ${rebuilt.seconds.toFixed(1)} s`);
});

test('a changed file the dashboard shares with the server rebuilds both', async () => {
  appendFileSync(join(tree, 'services', 'contract', 'limits.ts'), '\n// A change both builds read.\n');
  const written = fileTimes(tree);
  const rebuilt = await build();
  assert.equal(rebuilt.code, 0, rebuilt.output);
  assert.match(rebuilt.output, /build: server compiled/);
  assert.match(rebuilt.output, /build: dashboard built \(.*services\/contract\/limits\.ts changed\)/);
  assert.ok(changedFiles(written, fileTimes(tree)).includes('dist/services/contract/limits.js'));
});

test('outputs deleted from dist/ are written again though the build info survived', async () => {
  rmSync(join(tree, 'dist', 'cli', 'main.js'));
  rmSync(join(tree, 'dist', 'dashboard'), { recursive: true });
  const again = await build();
  assert.equal(again.code, 0, again.output);
  assert.match(again.output, /build: server compiled \(.*dist\/cli\/main\.js was missing\)/);
  assert.match(again.output, /build: dashboard built \(.*dist\/dashboard\/.* is missing or changed\)/);
  assert.ok(existsSync(join(tree, 'dist', 'cli', 'main.js')));
  assert.ok(existsSync(join(tree, 'dist', 'dashboard', 'index.html')));
});

test('npx svc in the clone runs the CLI and builds nothing: no prepare rewrites dist/ under a running server', async () => {
  const written = fileTimes(tree);
  // Its own npm cache, offline: what npx installs for the clone is made here and nothing is fetched.
  const env = { ...process.env, npm_config_cache: join(work, 'npm-cache'), npm_config_offline: 'true', npm_config_update_notifier: 'false' };
  const npx = await run('npx', ['svc', '--help'], tree, env);
  assert.equal(npx.code, 0, npx.output);
  assert.match(npx.output, /svc merchant create/);
  assert.deepEqual(changedFiles(written, fileTimes(tree)), [], 'npx wrote nothing in dist/');
  const direct = await run(process.execPath, ['bin/svc.js', '--help'], tree);
  assert.equal(direct.code, 0, direct.output);
  figure(`svc --help: npx svc ${npx.seconds.toFixed(1)} s, node bin/svc.js ${direct.seconds.toFixed(1)} s`);
});

test('without dist/, bin/svc.js says to build first instead of a stack trace', async () => {
  const bare = join(work, 'bare');
  copyCheckout(bare);
  const svc = await run(process.execPath, ['bin/svc.js', 'status'], bare);
  assert.equal(svc.code, 1);
  assert.equal(svc.output, 'svc: the CLI is not built; run `npm run build` (or `npm start`, which builds) first\n');
});
