import type { Clock } from '../platform/clock.js';
import type { Pool } from '../platform/db.js';

// An endpoint's maximum delivery rate (max_per_second), honoured by all dispatcher replicas
// together: the endpoint's row holds the current second and the slots taken in it, and a slot is
// one conditional UPDATE, so replicas on one database can never take more than the rate in one
// second between them. Slots are only taken in the first half of a second and used at once, so an
// attempt reaches the receiver within the same second even when the request is held up to half a
// second on the way (a busy dispatcher, a slow network): a receiver counting requests per second by
// its own (synchronised) clock sees at most the rate. With 900 ms, a laptop under load delivered
// two of one second's requests in the next.

const WINDOW_OPEN_MS = 500;

export interface Throttle {
  /**
   * Waits for a slot of the endpoint's rate; false when none came before `deadlineMs` (on the clock)
   * or `cancelled()` turned true meanwhile.
   */
  acquire(endpointId: string, perSecond: number, deadlineMs: number, cancelled: () => boolean): Promise<boolean>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes one slot in `second` (unix seconds) if the endpoint has one left there. */
export async function takeSlot(pool: Pool, endpointId: string, second: number, perSecond: number): Promise<boolean> {
  const { rowCount } = await pool.query({
    name: 'webhooks-throttle-slot',
    text: `UPDATE endpoints SET window_used = CASE WHEN window_second = $2 THEN window_used + 1 ELSE 1 END, window_second = $2
       WHERE id = $1 AND (window_second < $2 OR (window_second = $2 AND window_used < $3))`,
    values: [endpointId, second, perSecond],
  });
  return (rowCount ?? 0) > 0;
}

export function createThrottle(pool: Pool, clock: Clock): Throttle {
  return {
    async acquire(endpointId, perSecond, deadlineMs, cancelled) {
      for (;;) {
        if (cancelled()) return false;
        const now = clock.now().getTime();
        const second = Math.floor(now / 1000);
        if (now - second * 1000 < WINDOW_OPEN_MS && (await takeSlot(pool, endpointId, second, perSecond))) {
          // A slot whose second ended during the round trip is left unused rather than spent late.
          if (clock.now().getTime() < second * 1000 + WINDOW_OPEN_MS + 50) return true;
        }
        const next = (second + 1) * 1000;
        if (next > deadlineMs) return false;
        // Spread over the opening of the next second, so waiting claims do not all ask at once.
        await sleep(next - clock.now().getTime() + Math.floor(Math.random() * 50));
      }
    },
  };
}
