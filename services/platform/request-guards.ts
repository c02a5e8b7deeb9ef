import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import { isOneOf, MODES, type Mode } from '../contract/enums.js';
import { DomainError, invalidField } from '../contract/errors.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../contract/limits.js';

// The checks every part's handlers make on the fields requests share (scope, limit, test_scenario).
// The gateway checks the full contract first; these protect the parts from internal gRPC callers
// that bypass it, and the gateway may use them as they are: they throw DomainErrors, which the
// parts' RPC server sends as ConnectErrors. Plain functions rather than a connect interceptor: an
// interceptor sees every method alike and cannot hand the handler its scope typed as checked.

/** A scope whose merchant, project and mode are all set, the mode one of the two. */
export type CheckedScope = Scope & { mode: Mode };

function isChecked(scope: Scope | undefined): scope is CheckedScope {
  return !!scope && !!scope.merchantId && !!scope.projectId && isOneOf(MODES, scope.mode);
}

/** The request's scope, or 422 on `scope`. */
export function requireScope(scope: Scope | undefined): CheckedScope {
  if (!isChecked(scope)) {
    throw invalidField('scope', 'scope with merchant_id, project_id and mode is required');
  }
  return scope;
}

/** A list request's page size: 0 (proto3's unset) is the default, as an absent REST limit is; else 1 to 200. */
export function pageLimit(limit: number): number {
  if (limit === 0) return DEFAULT_PAGE_LIMIT;
  if (limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw invalidField('limit', `limit must be between 1 and ${MAX_PAGE_LIMIT}`);
  }
  return limit;
}

/** Sandbox scenarios force outcomes: a live key may not name one. */
export function refuseScenarioInLive(mode: string, scenario: string | undefined): void {
  if (scenario !== undefined && mode === 'live') {
    throw new DomainError('test_scenario_not_allowed', 'test_scenario is only accepted with test keys.', {
      param: 'test_scenario',
    });
  }
}
