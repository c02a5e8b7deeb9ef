import type { FastifyBaseLogger } from 'fastify';
import { isAllowed } from '../edge/ip-allowlist.js';

// An event stream is authenticated once, when it opens, and may then stay open for its maximum
// lifetime: revoking its key or narrowing its project's allow-list must still end it within
// seconds, on whichever replica holds it. Each gateway re-checks the keys of all the streams it
// holds in one statement every EVENT_STREAM_RECHECK_MS (no event to miss, no peer to reach), and
// ends those whose grant lapsed with a last `stream_ended` event saying why.

/** Why a stream ended, as its last event (`event: stream_ended`) says. */
export type StreamEndReason = 'revoked' | 'ip_not_allowed' | 'max_lifetime' | 'shutting_down';

export const STREAM_END_MESSAGES: Record<StreamEndReason, string> = {
  revoked: 'The API key of this stream was revoked; the stream has ended.',
  ip_not_allowed: 'The address of this stream is no longer in the project\'s IP allow-list; the stream has ended.',
  max_lifetime: 'The stream reached its maximum lifetime; reconnect with Last-Event-ID to resume where it ended.',
  shutting_down: 'The gateway is shutting down; reconnect with Last-Event-ID to resume where it ended.',
};

/**
 * Why a stream must end now, if it must: `allowlist` is its key's project's list, or undefined
 * when the key is revoked (or gone); `address` is the client address the stream was opened from.
 */
export function lapsedGrant(allowlist: readonly string[] | undefined, address: string | undefined): StreamEndReason | undefined {
  if (allowlist === undefined) return 'revoked';
  if (allowlist.length > 0 && (address === undefined || !isAllowed(address, allowlist))) return 'ip_not_allowed';
  return undefined;
}

export interface GuardedStream {
  keyId: string;
  /** The client address the stream was opened from (edge/ip-allowlist.ts clientAddress). */
  address: string | undefined;
  end(reason: StreamEndReason): void;
}

export interface StreamGuardOptions {
  /** Each key still active with its project's allow-list (store/stream-grants.ts). */
  grants(keyIds: string[]): Promise<Map<string, string[]>>;
  intervalMs: number;
  log: FastifyBaseLogger;
}

export function createStreamGuard(opts: StreamGuardOptions) {
  const streams = new Set<GuardedStream>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let failing = false;

  async function check(): Promise<void> {
    const batch = [...streams];
    if (batch.length === 0) return;
    let grants: Map<string, string[]>;
    try {
      grants = await opts.grants([...new Set(batch.map((s) => s.keyId))]);
    } catch (err) {
      // Postgres away: new requests cannot authenticate either; streams are re-checked when it is back.
      if (!failing) opts.log.warn({ err }, 'event streams: re-checking keys failed; retrying');
      failing = true;
      return;
    }
    failing = false;
    for (const stream of batch) {
      const reason = streams.has(stream) ? lapsedGrant(grants.get(stream.keyId), stream.address) : undefined;
      if (reason) stream.end(reason);
    }
  }

  // A chain of timeouts rather than an interval: a slow check never overlaps the next one.
  function schedule(): void {
    if (timer || closed || streams.size === 0) return;
    timer = setTimeout(() => {
      void check().finally(() => {
        timer = undefined;
        schedule();
      });
    }, opts.intervalMs);
    timer.unref();
  }

  return {
    /** Watches a stream until the function it returns is called (when the stream closes). */
    watch(stream: GuardedStream): () => void {
      streams.add(stream);
      schedule();
      return () => streams.delete(stream);
    },
    close(): void {
      closed = true;
      clearTimeout(timer);
    },
  };
}
