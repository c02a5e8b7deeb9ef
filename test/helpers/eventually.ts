/** Polls `probe` until it returns something other than undefined; fails naming `what` after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The rows `read` returns once there are at least `count`: for routing-risk's decisions, which it
 * writes after answering the plan (its next batch), so a read right after a payment may come first.
 */
export function rowsWritten<T>(what: string, read: () => Promise<{ rows: T[] }>, count = 1, timeoutMs = 10_000): Promise<T[]> {
  return eventually(what, async () => {
    const { rows } = await read();
    return rows.length >= count ? rows : undefined;
  }, timeoutMs);
}
