import { windowOf } from './rate-limit.js';

// The dashboard's "last used" of a key, to the minute: noted in memory at admission and written
// with the counts' reconciliation, at most once per key and clock minute by each replica.

export function createLastUse(store: { stampLastUsed(uses: Array<{ keyId: string; at: Date }>): Promise<void> }) {
  // The minute each key was last noted in, and the uses not yet written.
  const noted = new Map<string, number>();
  let unwritten = new Map<string, Date>();

  return {
    note(keyId: string, at: Date): void {
      const { start } = windowOf(at);
      if (noted.get(keyId) === start) return;
      noted.set(keyId, start);
      unwritten.set(keyId, at);
    },

    async write(now: Date): Promise<void> {
      const { start } = windowOf(now);
      for (const [keyId, minute] of noted) if (minute < start) noted.delete(keyId);
      if (unwritten.size === 0) return;
      const uses = [...unwritten].map(([keyId, at]) => ({ keyId, at }));
      unwritten = new Map();
      await store.stampLastUsed(uses);
    },
  };
}
