import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/db.js';
import type { Logger } from '../../platform/logger.js';
import type { PaymentsStore } from '../payments/index.js';
import { createApply } from './apply.js';
import { createDisputes } from './disputes.js';
import type { DisputeProviderActions } from './provider-actions.js';
import { createSandboxDisputes, disputeActions } from './sandbox.js';
import { createDisputeStore } from './store.js';

export interface DisputePartsDeps {
  pool: Pool;
  store: PaymentsStore;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  /** How often the sandbox's due openings and decisions are looked for. */
  intervalMs: number;
  /** Licensed providers' dispute actions by provider code (none yet: their disputes answer dispute_action_unsupported). */
  actions?: Record<string, DisputeProviderActions>;
}

/** The disputes of the payments part, assembled: applyProviderView, the merchant's side, the sandbox's jobs. */
export function createDisputeParts(deps: DisputePartsDeps) {
  const store = createDisputeStore(deps.pool);
  const apply = createApply({ store: deps.store, disputes: store, clock: deps.clock, relay: deps.relay });
  const disputes = createDisputes({
    store: deps.store, disputes: store, apply, actions: disputeActions(deps.actions), clock: deps.clock, relay: deps.relay,
  });
  const sandbox = createSandboxDisputes({
    store: deps.store, apply: apply.applyProviderView, clock: deps.clock, relay: deps.relay, logger: deps.logger,
    intervalMs: deps.intervalMs,
  });
  return { store, applyProviderView: apply.applyProviderView, disputes, sandbox };
}
