// Provider calls (payments, refunds, payouts) all run under a deadline: past it the caller stops
// waiting, whatever the callee does, and treats the outcome as unknown.

export class DeadlineExceeded extends Error {}

/** Runs `call` with an AbortSignal that fires after `ms`; stops waiting then even if the call ignores it. */
export async function withDeadline<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new DeadlineExceeded(`no answer within ${ms} ms`));
      reject(controller.signal.reason);
    }, ms);
  });
  const running = call(controller.signal);
  running.catch(() => {}); // a late failure after the deadline has no one left to hear it
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}
