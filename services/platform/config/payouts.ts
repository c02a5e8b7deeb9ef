import { int, str, type Env } from './parse.js';

// The payouts part's settings: the hold before a payout is sent, and its sweep.

export interface PayoutsSettings {
  /** A payout waits this long in `created` (cancellable) before it is sent to its provider. */
  payoutHoldMs: number;
  /** How often the payouts part sends the payouts whose hold has passed. */
  payoutSweepMs: number;
  /** The hold of a test-mode payout (PAYOUT_TEST_HOLD_MS): seconds, so a first try is not a minute's wait. */
  payoutTestHoldMs: number;
}

export function payoutsSettings(env: Env): PayoutsSettings {
  return {
    payoutHoldMs: int(env, 'PAYOUT_HOLD_MS'),
    payoutSweepMs: int(env, 'PAYOUT_SWEEP_MS'),
    // A test payout waits seconds, not a minute; an explicit PAYOUT_HOLD_MS still applies to both modes unless this one is set.
    payoutTestHoldMs: int(env, 'PAYOUT_TEST_HOLD_MS', str(env, 'PAYOUT_HOLD_MS') === undefined ? undefined : int(env, 'PAYOUT_HOLD_MS')),
  };
}
