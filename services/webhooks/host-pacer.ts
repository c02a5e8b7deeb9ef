// Webhook attempts to one destination host are spaced out: at most `perSecond` start per second
// from one dispatcher, whatever the number of endpoints (or projects) that point at the host. A
// burst to one host then waits for its slots instead of hammering it (or being turned into an
// amplifier against a third party's host); other hosts are not held back. Slots are evenly spaced
// (1000 / perSecond ms apart), so any perSecond + 1 consecutive attempts span at least a second.

export interface HostPacer {
  /** Milliseconds until the host's next free slot (0: now), without taking it. */
  waitFor(host: string, nowMs: number): number;
  /** Takes the host's next free slot; returns the milliseconds until it. */
  take(host: string, nowMs: number): number;
}

/** Hosts whose next slot is in the past are forgotten once this many are remembered. */
const PRUNE_ABOVE = 1_000;

export function createHostPacer(perSecond: number): HostPacer {
  const spacing = 1000 / perSecond;
  const nextFree = new Map<string, number>();
  const prune = (nowMs: number) => {
    if (nextFree.size <= PRUNE_ABOVE) return;
    for (const [host, at] of nextFree) if (at <= nowMs) nextFree.delete(host);
  };
  return {
    waitFor: (host, nowMs) => Math.max(0, (nextFree.get(host) ?? nowMs) - nowMs),
    take(host, nowMs) {
      prune(nowMs);
      const at = Math.max(nowMs, nextFree.get(host) ?? nowMs);
      nextFree.set(host, at + spacing);
      return at - nowMs;
    },
  };
}

/** The destination host of an endpoint URL (ports of one host share it: they are one machine). */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return url;
  }
}
