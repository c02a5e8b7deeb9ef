import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../all-in-one/embedded-postgres.js';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** CI must test against the real services it provides, never quietly without them. */
export function requireInCi(variable: 'DATABASE_URL' | 'NATS_URL'): void {
  if (process.env.CI && !process.env[variable]) {
    throw new Error(`${variable} must be set in CI: tests never run without the real service`);
  }
}

/**
 * A fresh database per test file, so files run side by side and leave nothing behind:
 * created on DATABASE_URL's server, or on an embedded Postgres when DATABASE_URL is unset.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  requireInCi('DATABASE_URL');
  let serverUrl = process.env.DATABASE_URL;
  let stopServer = async () => undefined as void;
  if (!serverUrl) {
    const embedded = await startTempPostgres();
    serverUrl = embedded.url;
    stopServer = embedded.stop;
  }
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    await stopServer().catch(() => undefined);
    throw new Error(`could not create the test database on ${redacted(serverUrl)}: ${describe(err)}`, { cause: err });
  } finally {
    await admin.end().catch(() => undefined);
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      await stopServer();
    },
  };
}

/**
 * An embedded Postgres in a fresh temp folder on a random port; its folder is removed when it
 * cannot start too, and the error says why (a before-hook's failure otherwise only cancels tests).
 */
async function startTempPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-pg-'));
  // From here: a signal during initdb or start-up removes the folder too.
  removeOnSignal(dir);
  // A random port can be taken by another file's server: a few tries before giving up.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    try {
      const embedded = await startEmbeddedPostgres(dir, port, () => undefined);
      return {
        url: embedded.url,
        async stop() {
          await embedded.stop();
          await rm(dir, { recursive: true, force: true });
          running.delete(dir);
        },
      };
    } catch (err) {
      lastError = err;
    }
  }
  await rm(dir, { recursive: true, force: true });
  running.delete(dir);
  throw new Error(`the embedded Postgres for this test file did not start (folder ${dir} removed): ${describe(lastError)}`, { cause: lastError });
}

// The test runner ends a file past its timeout (and Ctrl-C ends a run) with a signal, and no
// after-hook runs then: each embedded server this process started is stopped and its folder
// removed before the process exits, or they outlive the run.
const running = new Set<string>();
const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

let listening = false;

function removeOnSignal(dir: string): void {
  if (!listening) for (const signal of SIGNALS) process.on(signal, onSignal);
  listening = true;
  running.add(dir);
}

function onSignal(signal: NodeJS.Signals): void {
  for (const dir of running) stopAndRemoveSync(dir);
  process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGHUP' ? 1 : 15));
}

/** Immediate shutdown (SIGQUIT) of the server in `dir`, waiting up to 10 s for it to go, then its folder. */
function stopAndRemoveSync(dir: string): void {
  try {
    const pid = Number(readFileSync(join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGQUIT');
    const wait = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0; i < 200; i++) {
      process.kill(pid, 0);
      Atomics.wait(wait, 0, 0, 50);
    }
  } catch {
    // No pid file or the process is gone: nothing more to wait for.
  }
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

function redacted(url: string): string {
  const u = new URL(url);
  u.password = '';
  return u.toString();
}
