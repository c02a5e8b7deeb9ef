import { randomBytes } from 'node:crypto';
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
    const dir = await mkdtemp(join(tmpdir(), 'svc-test-pg-'));
    const port = 20000 + Math.floor(Math.random() * 20000);
    const embedded = await startEmbeddedPostgres(dir, port, () => undefined);
    serverUrl = embedded.url;
    stopServer = async () => {
      await embedded.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
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
