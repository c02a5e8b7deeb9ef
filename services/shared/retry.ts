import type { Logger } from './logger.js';

// Start-up waits for what a part depends on (Postgres, NATS) instead of exiting: in Kubernetes
// the parts, the database and the broker start in any order, and a crash loop hides the reason.

// Socket failures (Node), Postgres refusing connections for now, and NATS failing to connect or
// answering before JetStream is ready. Anything else (a bad password, a failing migration) is
// not waited out: it is reported at once.
const SOCKET_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
]);
const POSTGRES_CODES = new Set(['57P03', '53300', '08000', '08001', '08004', '08006']);
const NATS_CODES = new Set(['CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'TIMEOUT', 'DISCONNECT', 'CONNECTION_CLOSED', '503']);

/** Whether `err` means "not reachable yet" rather than "reached and refused". */
export function isUnreachable(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const { code, errors, message } = err as { code?: unknown; errors?: unknown[]; message?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || POSTGRES_CODES.has(code) || NATS_CODES.has(code))) return true;
  // Node's happy-eyeballs connect reports every address it tried in one AggregateError.
  if (Array.isArray(errors) && errors.some(isUnreachable)) return true;
  return typeof message === 'string' && /Connection terminated unexpectedly|timeout expired/i.test(message);
}

export interface RetryOptions {
  logger: Logger;
  initialMs?: number;
  maxMs?: number;
  isTransient?: (err: unknown) => boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it succeeds, waiting between transient failures with exponential backoff
 * (0.5 s doubling to 10 s) and logging what it waits for each time. Any other failure is thrown.
 */
export async function retryAtStart<T>(what: string, attempt: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const isTransient = opts.isTransient ?? isUnreachable;
  const maxMs = opts.maxMs ?? 10_000;
  let delay = opts.initialMs ?? 500;
  for (let tries = 1; ; tries++) {
    try {
      const result = await attempt();
      if (tries > 1) opts.logger.info({ tries }, `${what} reached`);
      return result;
    } catch (err) {
      if (!isTransient(err)) throw err;
      opts.logger.warn(
        { err: describe(err), tries, retry_in_ms: delay },
        `waiting for ${what}: not reachable yet, retrying in ${Math.round(delay / 100) / 10} s`,
      );
      await sleep(delay);
      delay = Math.min(delay * 2, maxMs);
    }
  }
}

// The message only: a connection error's own fields can hold the configuration it was built from.
function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; errors?: Array<{ message?: string }> };
  const message = e.message || e.errors?.map((x) => x.message).join('; ') || String(err);
  return e.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}
