/**
 * Gathers calls while the previous batch is being written, so under load one statement serves many
 * callers instead of one round trip each. Alone, a call is written at once, or, with `waitMs`, after
 * waiting that long for company (cut short once `maxBatch` calls are waiting), for writers whose
 * readers need no freshness below that. `run` gets the items in call order and returns one result
 * per item, in the same order. A failed batch fails each of its callers.
 */
export type Batched<T, R> = ((item: T) => Promise<R>) & {
  /** Ends the wait of the calls waiting for company: they are written now (a reader needs them). */
  now(): void;
};

/** Calls per statement at most, unless a writer says otherwise: enough for writers of small rows. */
export const DEFAULT_MAX_BATCH = 500;

export function createBatcher<T, R>(
  run: (items: T[]) => Promise<R[]>, maxBatch = DEFAULT_MAX_BATCH, waitMs = 0,
): Batched<T, R> {
  const waiting: Array<{ item: T; resolve: (r: R) => void; reject: (err: unknown) => void }> = [];
  let writing = false;
  let lingering: NodeJS.Timeout | undefined;

  async function drain(): Promise<void> {
    clearTimeout(lingering);
    lingering = undefined;
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0, maxBatch);
      try {
        const results = await run(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results[i]));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    writing = false;
  }

  const call = (item: T) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (writing) return;
      if (waitMs <= 0 || waiting.length >= maxBatch) void drain();
      else lingering ??= setTimeout(() => void drain(), waitMs);
    });
  return Object.assign(call, {
    now() {
      if (lingering && !writing) void drain();
    },
  });
}
