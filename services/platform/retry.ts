import { ConfigError } from './config.js';
import type { Logger } from './logger.js';

// Start-up waits for what a part depends on (Postgres, NATS and its JetStream API, peers) instead
// of exiting: in Kubernetes the parts, the database and the broker start in any order, a broker
// restarted under load answers connections before its JetStream API keeps up, and a crash loop
// hides the reason. Every step retries until START_TIMEOUT_MS (the chart's startup probe budget)
// is spent, then the process exits 1 with one line naming the step
// (docs/decisions/2026-11-27-start-up-and-the-http-edge.md).

// What no wait can fix is reported at once: a wrong password, a database or schema that does not
// exist, SQL a migration cannot run (Postgres SQLSTATE classes), credentials NATS refuses.
const PERMANENT_POSTGRES_CLASSES = new Set(['0A', '22', '23', '28', '3D', '3F', '42']);
const PERMANENT_NATS_CODES = new Set([
  'AUTHORIZATION_VIOLATION', 'AUTHENTICATION_EXPIRED', 'AUTHENTICATION_TIMEOUT', 'BAD_AUTHENTICATION', 'BAD_CREDS',
  'PERMISSIONS_VIOLATION',
]);

/** Whether retrying `err` cannot help; anything unknown (a timeout, a 503, a reset) is waited out. */
export function isPermanent(err: unknown): boolean {
  if (err instanceof ConfigError || err instanceof StartUpError) return true;
  if (err === null || typeof err !== 'object') return false;
  const { code, cause } = err as { code?: unknown; cause?: unknown };
  if (typeof code === 'string') {
    if (PERMANENT_NATS_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && PERMANENT_POSTGRES_CLASSES.has(code.slice(0, 2))) return true;
  }
  return cause !== undefined && cause !== err && isPermanent(cause);
}

/** First and longest wait between two attempts of a step. */
const FIRST_WAIT_MS = 250;
const LONGEST_WAIT_MS = 10_000;

/**
 * Capped exponential backoff with "equal jitter": half the doubled wait, plus a random part of the
 * other half, so replicas started together do not hit a recovering broker in step.
 */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** A step's failure as a log line may hold it: the class and code, and the message only. */
export function describeError(err: unknown): { errorClass: string; message: string } {
  const e = err as { code?: unknown; message?: string; errors?: Array<{ message?: string }>; constructor?: { name?: string } };
  const code = typeof e?.code === 'string' || typeof e?.code === 'number' ? String(e.code) : undefined;
  const name = (err instanceof Error && e.constructor?.name) || typeof err;
  // The message only: a connection error's own fields can hold the configuration it was built from.
  const message = e?.message || e?.errors?.map((x) => x.message).join('; ') || String(err);
  return { errorClass: code ? `${name} ${code}` : name, message };
}

/** A start-up failure explained in one line (what failed, what to change): printed without a stack. */
export class StartUpError extends Error {}

/** Start-up gave up: the step, how long it was given, and what it last met. */
export class StepTimedOut extends StartUpError {
  constructor(readonly step: string, timeoutMs: number, last: unknown) {
    const { errorClass, message } = describeError(last);
    super(`step "${step}" did not succeed within ${Math.round(timeoutMs / 1000)} s (START_TIMEOUT_MS): ` +
      `${errorClass}: ${message}`);
  }
}

export interface StartUpOptions {
  logger: Logger;
  /** START_TIMEOUT_MS: the whole start-up's budget, from now. */
  timeoutMs: number;
  /** Called when a step hangs past the budget (it never returns nor fails); the process exits there. */
  onTimeout?: (err: StepTimedOut) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The start-up of one process: every step it waits on goes through step(), under one deadline.
 * A step that hangs is caught by a watchdog at the deadline; done() ends the watch.
 */
export class StartUp {
  private readonly deadline: number;
  private current = 'start-up';
  private last: unknown = new Error('no answer');
  private readonly watchdog: NodeJS.Timeout | undefined;

  constructor(private readonly opts: StartUpOptions) {
    this.deadline = Date.now() + opts.timeoutMs;
    if (opts.onTimeout) {
      const onTimeout = opts.onTimeout;
      this.watchdog = setTimeout(() => onTimeout(new StepTimedOut(this.current, opts.timeoutMs, this.last)), opts.timeoutMs);
      this.watchdog.unref();
    }
  }

  /** Runs `attempt` until it succeeds, waiting between failures, until the deadline; then throws StepTimedOut. */
  async step<T>(name: string, attempt: () => Promise<T>): Promise<T> {
    this.current = name;
    for (let tries = 1; ; tries++) {
      try {
        const result = await attempt();
        if (tries > 1) this.opts.logger.info({ step: name, tries }, `start-up step "${name}" succeeded`);
        return result;
      } catch (err) {
        if (isPermanent(err)) throw err;
        this.last = err;
        const wait = backoffMs(tries);
        if (Date.now() + wait >= this.deadline) throw new StepTimedOut(name, this.opts.timeoutMs, err);
        const { errorClass, message } = describeError(err);
        this.opts.logger.warn(
          { step: name, error_class: errorClass, err: message, tries, retry_in_ms: wait },
          `start-up step "${name}" failed (${errorClass}), retrying in ${Math.round(wait / 100) / 10} s`,
        );
        await sleep(wait);
      }
    }
  }

  /** Start-up is over: the watchdog stops. */
  done(): void {
    clearTimeout(this.watchdog);
  }
}
