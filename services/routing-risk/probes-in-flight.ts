import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import type { HealthHistory } from './strategies/index.js';

/**
 * The probes this process planned whose outcome the health read does not show yet. A probe's
 * outcome reaches Postgres up to the outcome consumer's wait later, and every plan made meanwhile
 * would find the probe still due (account-health.ts's probeDue): remembering them bounds a burst of
 * probes by the number of replicas instead of the segment's payment rate times that latency. A probe
 * is forgotten once its account shows an attempt newer than it, or after `ttlMs` (an outcome lost or
 * late: the next plan may probe again).
 */
export function probesInFlight(ttlMs = 2_000, max = 10_000) {
  const planned = new Map<string, number>();
  const keyOf = (scope: Scope, method: string, currency: string, account: string) =>
    JSON.stringify([scope.merchantId, scope.projectId, scope.mode, method, currency, account]);
  return {
    /** The accounts of this payment's segment with a probe in flight, by the health just read. */
    pending(scope: Scope, method: string, currency: string, health: HealthHistory, nowMs: number): Set<string> {
      const pending = new Set<string>();
      if (planned.size === 0) return pending;
      for (const [account, newest] of health) {
        const key = keyOf(scope, method, currency, account);
        const at = planned.get(key);
        if (at === undefined) continue;
        const seenAt = newest[0] ? nowMs - newest[0].ageSeconds * 1000 : -Infinity;
        if (nowMs - at > ttlMs || seenAt >= at) planned.delete(key);
        else pending.add(account);
      }
      return pending;
    },
    record(scope: Scope, method: string, currency: string, account: string, nowMs: number): void {
      if (planned.size >= max) planned.clear();
      planned.set(keyOf(scope, method, currency, account), nowMs);
    },
  };
}
