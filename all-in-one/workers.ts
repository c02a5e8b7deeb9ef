// `npm start` on an external Postgres and NATS: WORKERS processes (node:cluster) each run the
// whole service and share PORT, so the request path can use every core. Each worker is a replica
// like a deployment's: leases, the clock and idempotency live in Postgres, events in JetStream. The
// embedded Postgres and the in-process bus belong to one process, so without both URLs it is one.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { ConfigError, type Config } from '../services/platform/config.js';
import type { Logger } from '../services/platform/logger.js';

// WORKERS=0's most: each worker opens its own pools (parts × DATABASE_POOL_SIZE), and a stock
// Postgres's max_connections should hold them on a large machine; a number asks for more.
const MOST_BY_DEFAULT = 4;

const RESTART_DELAY_MS = 1_000;

/** What a worker tells the supervisor once it serves. */
interface Ready { svcWorkerReady: { baseUrl: string } }

/** How many processes serve: WORKERS (0: one per core); always one on the embedded database or bus. */
export function workerCount(config: Config): number {
  const shareable = config.databaseUrl !== undefined && config.natsUrl !== undefined;
  if (config.workers > 1 && !shareable) {
    throw new ConfigError('WORKERS', 'above 1 needs DATABASE_URL and NATS_URL: the embedded Postgres and the in-process bus serve one process');
  }
  if (config.workers > 1 && config.metricsPort !== undefined) {
    throw new ConfigError('WORKERS', 'above 1 cannot serve METRICS_PORT: each worker counts only its own requests (set WORKERS=1, or run the parts separately)');
  }
  if (config.workers > 0) return config.workers;
  if (!shareable || config.metricsPort !== undefined) return 1;
  return Math.min(availableParallelism(), MOST_BY_DEFAULT);
}

/** In a worker: tells the supervisor this one serves (it prints the start-up text once, for all). */
export function reportReady(baseUrl: string): void {
  process.send!({ svcWorkerReady: { baseUrl } } satisfies Ready);
}

export interface Supervisor {
  /** Resolves with the gateway's address once every worker serves. */
  ready: Promise<string>;
  /** SIGTERM to every worker; resolves once all have exited, true when each exited 0. */
  stop(): Promise<boolean>;
}

/**
 * Forks `count` workers running this entrypoint. A worker that exits before all serve ends the
 * start (its own message says why); one that dies later is replaced.
 */
export function superviseWorkers(count: number, logger: Logger): Supervisor {
  let stopping = false;
  let started = false;
  let failedStart: ((err: Error) => void) | undefined;
  let allReady: ((baseUrl: string) => void) | undefined;
  const ready = new Promise<string>((resolve, reject) => { allReady = resolve; failedStart = reject; });
  const serving = new Set<number>();
  const exitCodes: (number | null)[] = [];

  const fork = (): void => {
    const worker = cluster.fork();
    worker.on('message', (message: Partial<Ready>) => {
      if (!message?.svcWorkerReady) return;
      serving.add(worker.id);
      if (!started && serving.size === count) {
        started = true;
        allReady!(message.svcWorkerReady.baseUrl);
      }
    });
    worker.on('exit', (code, signal) => {
      serving.delete(worker.id);
      if (stopping) {
        exitCodes.push(code);
        return;
      }
      if (!started) {
        failedStart!(new WorkerStartError(code ?? 1));
        return;
      }
      logger.error({ pid: worker.process.pid, code, signal }, 'worker exited; starting another');
      // A pause, so a worker that cannot start (Postgres gone) is retried, not forked in a hot loop.
      setTimeout(() => { if (!stopping) fork(); }, RESTART_DELAY_MS);
    });
  };
  for (let i = 0; i < count; i++) fork();

  return {
    ready,
    async stop() {
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      await Promise.all(workers.map((w) => new Promise<void>((resolve) => {
        if (w.isDead()) return resolve();
        w.once('exit', () => resolve());
        w.process.kill('SIGTERM');
      })));
      return exitCodes.every((code) => code === 0);
    },
  };
}

/** A worker ended during start-up; it has printed why. */
export class WorkerStartError extends Error {
  constructor(readonly exitCode: number) {
    super(`a worker exited during start-up (exit ${exitCode})`);
  }
}
