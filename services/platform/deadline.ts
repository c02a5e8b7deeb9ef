import type { Transport } from '@connectrpc/connect';

// Provider calls (payments, refunds, payouts) all run under a deadline: past it the caller stops
// waiting, whatever the callee does, and treats the outcome as unknown. So do calls between parts
// (withDefaultDeadline) and statements to Postgres (db.ts).

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

/**
 * How long after a provider call began no request can still be waiting on it: the call and a
 * status query each run under `timeoutMs`; the rest is room for a slow event loop or database.
 * Past it, reconciliation may settle an outcome that is still open.
 */
export function abandonedAfterMs(timeoutMs: number): number {
  return 3 * timeoutMs + 5_000;
}

/**
 * A transport whose unary calls made without a deadline get `ms`: a part that hangs (its database
 * partitioned away) costs the caller at most that, then DEADLINE_EXCEEDED, a 503 at the gateway.
 * Streams (event streams) stay open as long as their caller wants.
 */
export function withDefaultDeadline(transport: Transport, ms: number): Transport {
  return {
    unary: (method, signal, timeoutMs, ...rest) => transport.unary(method, signal, timeoutMs ?? ms, ...rest),
    stream: transport.stream.bind(transport),
  };
}
