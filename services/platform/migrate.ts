import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { QueryConfig } from 'pg';
import { checkOut, transactionOn, type Pool } from './db.js';
import { projectPath } from './paths.js';

const MIGRATION = /\.(sql|shared)$/;
// The longest timer node keeps (about 24 days): as good as none.
const NO_LIMIT_MS = 2_147_483_647;

/**
 * A migration's text. `NNNN-name.shared` names a file of services/platform/migrations that several
 * parts apply into their own schemas (the outbox's columns, idempotency bindings): the DDL is
 * written once, and each part keeps its own place for it in its order.
 */
async function migrationSql(dir: string, file: string): Promise<string> {
  if (!file.endsWith('.shared')) return readFile(join(dir, file), 'utf8');
  const shared = (await readFile(join(dir, file), 'utf8')).trim();
  return readFile(projectPath('services/platform/migrations', shared), 'utf8');
}

/**
 * Applies a part's migrations (`<part dir>/migrations/NNNN-name.sql` or `.shared`, in name order)
 * to its schema. A session-level advisory lock per schema serialises replicas that start together.
 */
export async function migrate(pool: Pool, schema: string, partDir: string): Promise<string[]> {
  const dir = projectPath(partDir, 'migrations');
  // A part without tables yet has no migrations folder; it still gets its schema.
  const files = existsSync(dir) ? (await readdir(dir)).filter((f) => MIGRATION.test(f)).sort() : [];
  const { client, release } = await checkOut(pool);
  const applied: string[] = [];
  // Waiting for another replica's migrations, and a migration itself, may take long: this session
  // alone is exempt from the pool's statement and query timeouts (db.ts) until it is reset.
  await client.query('SET statement_timeout = 0');
  try {
    await client.query({ text: 'SELECT pg_advisory_lock(hashtext($1))', values: [`svc-migrate:${schema}`], query_timeout: NO_LIMIT_MS } as QueryConfig);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
           version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const done = new Set(
        (await client.query(`SELECT version FROM ${schema}.schema_migrations`)).rows.map((r) => r.version as string),
      );
      for (const file of files) {
        if (done.has(file)) continue;
        const sql = await migrationSql(dir, file);
        // On the lock's own session: another replica cannot start this migration meanwhile.
        await transactionOn(client, async () => {
          await client.query(`SET LOCAL search_path TO ${schema}`);
          await client.query({ text: sql, query_timeout: NO_LIMIT_MS } as QueryConfig);
          await client.query(`INSERT INTO ${schema}.schema_migrations (version) VALUES ($1)`, [file]);
        }).catch((err: Error) => {
          // The cause's SQLSTATE tells start-up whether waiting can help (retry.ts isPermanent).
          throw new Error(`migration ${schema}/${file} failed: ${err.message}`, { cause: err });
        });
        applied.push(file);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`svc-migrate:${schema}`]);
    }
  } finally {
    await client.query('RESET statement_timeout').catch(() => undefined);
    release();
  }
  return applied;
}
