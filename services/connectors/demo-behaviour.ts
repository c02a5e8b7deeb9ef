// How a project's demo providers behave in the sandbox: the settings the demo connector
// plays per segment when a payment names no test_scenario, and the per-attempt draw. Kept by
// payments (demo-behaviour/), read per attempt through a short cache.
import { stickyShare } from '../platform/sticky-share.js';
import type { Play } from './scenarios.js';

export interface DemoBehaviour {
  /** Of the attempts the provider answers, the share approved; the rest are soft declines. */
  approvalRate: number;
  /** Of all attempts, the share that fail technically. */
  technicalErrorRate: number;
  /** Added to the account's own latency. */
  latencyMs: number;
  /** Until then every attempt finds the provider unavailable. */
  outageUntil: Date | null;
  /**
   * Of the attempts that do not fail technically, the share played as a late success: no answer in
   * time and "never received" to the status query, then a report that it had charged after all.
   */
  lateSuccessRate: number;
}

/** Which settings an attempt is played by: the payment's project and segment at this provider. */
export interface DemoSegmentKey {
  projectId: string;
  providerCode: string;
  methodType: string;
  currency: string;
  country: string | null;
}

export interface DemoBehaviourSource {
  behaviourFor(key: DemoSegmentKey): Promise<DemoBehaviour | undefined>;
  now(): Date;
}

/**
 * What the provider does with one attempt. The draw comes from the attempt id (random per attempt,
 * as ids carry a random part), so the status query after a time-out tells what authorize did. A
 * provider in an outage is unavailable: it refuses the call, as a down provider's edge answers
 * 503; routing counts that as a technical failure, as it counts time-outs.
 */
export function behaviourPlay(b: DemoBehaviour, attemptId: string, now: Date): Play {
  if (b.outageUntil && now < b.outageUntil) return 'unavailable';
  if (stickyShare(attemptId, 'demo-technical-error') < b.technicalErrorRate) return 'technical_error';
  if (stickyShare(attemptId, 'demo-late-success') < b.lateSuccessRate) return 'timeout_not_received';
  return stickyShare(attemptId, 'demo-approval') < b.approvalRate ? 'approve' : 'soft_decline';
}
