import type { Logger } from '../../services/platform/logger.js';

// Work a public form does after it has answered: whether the email has an account decides what is
// done (a link, a notice, nothing), and doing it before the answer would let the answer's timing
// tell. The gateway waits for what is still running when it closes (app.ts), so a shutdown does not
// cut a mail half-sent.

export interface AfterAnswer {
  /** Starts `work` now without awaiting it; a failure is logged by `what`, never thrown. */
  run(what: string, work: () => Promise<void>): void;
  /** Resolves once everything started has finished. */
  drain(): Promise<void>;
}

export function afterAnswer(logger: Logger): AfterAnswer {
  const running = new Set<Promise<void>>();
  return {
    run(what, work) {
      const done: Promise<void> = Promise.resolve()
        .then(work)
        // The message only: an error's own fields (an SMTP reply, a query's parameters) may quote a link.
        .catch((err: Error) => logger.error({ task: what, reason: err?.message }, `${what} failed: ${err?.message}`))
        .finally(() => running.delete(done));
      running.add(done);
    },
    async drain() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
