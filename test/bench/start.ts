// How long `npm start` takes until it serves, on a copy of this checkout as a new clone has it and
// as a person runs it on a laptop (embedded Postgres, in-process bus, nothing set): cold (no dist/,
// no data: the whole build, a new database) and then restarts of the unchanged clone, each timed
// from `npm start` to /healthz answering, with the build step's own lines. Printed, never asserted.
// Run: `npm run bench:start` (BENCH_RESTARTS, default 2).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyCheckout, npmStart } from '../helpers/build-copy.js';
import { freePort, waitForHttp } from '../helpers/processes.js';

const RESTARTS = Number(process.env.BENCH_RESTARTS ?? 2);

const tree = mkdtempSync(join(tmpdir(), 'svc-bench-start-'));
// Its own folder, as the embedded-start test does: run as root, the embedded Postgres hands its
// data folder to another user, who must be able to reach it.
const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-start-data-'));
try {
  copyCheckout(tree);
  const port = await freePort();
  const env = { PORT: String(port), DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(await freePort()) };
  for (let run = 0; run <= RESTARTS; run++) {
    const started = performance.now();
    const svc = npmStart(tree, env);
    try {
      await waitForHttp(svc, `http://127.0.0.1:${port}/healthz`, 900_000);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const steps = svc.output().split('\n').filter((l) => l.startsWith('build: ')).join('; ');
      console.log(`${run === 0 ? 'cold start' : `restart ${run}`}: serving after ${seconds} s (${steps})`);
    } finally {
      await svc.stop();
    }
  }
} finally {
  rmSync(tree, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}
