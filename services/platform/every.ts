import type { Logger } from './logger.js';

/**
 * Runs `job` every `intervalMs` until stopped; a run that throws is logged and retried at the next
 * tick. stop() waits for a run under way, so the pool is not closed beneath it.
 */
export function every(intervalMs: number, name: string, logger: Logger, job: () => Promise<unknown>) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  const schedule = () => {
    timer = setTimeout(() => {
      // A job that throws before its first await (a clock refusing to tell the time) is a failed run too.
      running = Promise.resolve().then(job)
        .catch((err: Error) => logger.warn({ err: err.message }, `${name} failed, will retry`))
        .finally(() => {
          running = undefined;
          if (!stopped) schedule();
        });
    }, intervalMs);
  };
  return {
    start(): void {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
