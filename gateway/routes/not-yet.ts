import { DomainError } from '../../services/shared/index.js';
import type { Handlers } from '../contract/index.js';
import { refuseScenarioInLive } from './payments.js';

// Payouts are answered by their service once it is built (issue 6).
// The edge rule that a live key may not send test_scenario holds already.
function scenarioCheckedNotYet(what: string) {
  return async (request: { identity?: { mode: string }; body?: unknown }) => {
    refuseScenarioInLive(request.identity!.mode, (request.body as { test_scenario?: string }).test_scenario);
    throw new DomainError('not_implemented', `${what} is not available yet.`);
  };
}

export function notYetHandlers(): Handlers {
  return {
    createPayout: scenarioCheckedNotYet('POST /v1/payouts'),
  };
}
