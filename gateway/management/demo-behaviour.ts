import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { DemoBehaviour } from '../../proto/gen/svc/payments/v1/demo_behaviour_pb.js';
import { invalidField } from '../../services/contract/index.js';
import type { Mode } from '../store/index.js';
import { audit, projectScope, type ManageDeps, type ManageHandlers } from './context.js';
import { wholeNumber } from './routing-rules.js';

// How a project's demo providers behave in the sandbox, kept by payments (DemoBehaviourService),
// which checks every value and refuses live mode:
//   GET    /manage/v1/projects/:id/demo-behaviour?mode=test
//   PUT    /manage/v1/projects/:id/demo-behaviour   {mode, provider, payment_method, currency, country?,
//                                                     approval_rate?, technical_error_rate?, latency_ms?, outage_minutes?,
//                                                     late_success_rate?}
//   DELETE /manage/v1/projects/:id/demo-behaviour?mode=test[&provider=&payment_method=&currency=&country=]
// A PUT changes one segment: the fields it gives, the others kept.

interface SetBody {
  mode: Mode;
  provider: string;
  payment_method: string;
  currency: string;
  country?: string;
  approval_rate?: unknown;
  technical_error_rate?: unknown;
  latency_ms?: unknown;
  outage_minutes?: unknown;
  late_success_rate?: unknown;
}

interface ClearQuery { mode: Mode; provider?: string; payment_method?: string; currency?: string; country?: string }

// Checked by type here (the schema leaves numbers open so "0.8" is refused by name, not coerced);
// payments checks the ranges.
function rate(value: unknown, param: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw invalidField(param, `${param} must be a number between 0 and 1`);
  return value;
}

const whole = (value: unknown, param: string): bigint | undefined =>
  (value === undefined ? undefined : BigInt(wholeNumber(value, param)));

export function behaviourJson(b: DemoBehaviour, projectId: string, mode: string) {
  return {
    object: 'demo_behaviour',
    project_id: projectId,
    mode,
    provider: b.segment?.provider,
    payment_method: b.segment?.paymentMethod,
    currency: b.segment?.currency,
    country: b.segment?.country,
    approval_rate: b.approvalRate,
    technical_error_rate: b.technicalErrorRate,
    latency_ms: b.latencyMs,
    outage_until: b.outageUntil ? timestampDate(b.outageUntil).toISOString() : null,
    late_success_rate: b.lateSuccessRate,
    updated_at: b.updatedAt ? timestampDate(b.updatedAt).toISOString() : null,
  };
}

type Json = ReturnType<typeof behaviourJson>;
const segmentId = (j: Json) => `${j.provider}/${j.payment_method}/${j.currency}/${j.country}`;

export function demoBehaviourHandlers(deps: ManageDeps): ManageHandlers {
  const { store, clients: { demoBehaviour } } = deps;
  const projectId = (request: { params: unknown }) => (request.params as { id: string }).id;

  return {
    async getDemoBehaviour(request) {
      const scope = await projectScope(store, projectId(request), (request.query as { mode: Mode }).mode);
      const { behaviours } = await demoBehaviour.listDemoBehaviour({ scope });
      return { object: 'list', data: behaviours.map((b) => behaviourJson(b, scope.projectId, scope.mode)) };
    },

    async setDemoBehaviour(request) {
      const b = request.body as SetBody;
      const scope = await projectScope(store, projectId(request), b.mode);
      const { behaviour } = await demoBehaviour.setDemoBehaviour({
        scope,
        segment: { provider: b.provider, paymentMethod: b.payment_method, currency: b.currency, country: b.country ?? '*' },
        approvalRate: rate(b.approval_rate, 'approval_rate'),
        technicalErrorRate: rate(b.technical_error_rate, 'technical_error_rate'),
        latencyMs: whole(b.latency_ms, 'latency_ms'),
        outageMinutes: whole(b.outage_minutes, 'outage_minutes'),
        lateSuccessRate: rate(b.late_success_rate, 'late_success_rate'),
      });
      const json = behaviourJson(behaviour!, scope.projectId, scope.mode);
      await audit(deps, 'demo_behaviour.set', {
        merchantId: scope.merchantId, projectId: scope.projectId, targetId: segmentId(json), data: json,
      });
      return json;
    },

    async clearDemoBehaviour(request) {
      const q = request.query as ClearQuery;
      const scope = await projectScope(store, projectId(request), q.mode);
      const { behaviours } = await demoBehaviour.clearDemoBehaviour({
        scope, provider: q.provider, paymentMethod: q.payment_method, currency: q.currency, country: q.country,
      });
      const data = behaviours.map((b) => behaviourJson(b, scope.projectId, scope.mode));
      // One record per removed segment, as each was set one by one.
      for (const json of data) {
        await audit(deps, 'demo_behaviour.cleared', {
          merchantId: scope.merchantId, projectId: scope.projectId, targetId: segmentId(json), data: json,
        });
      }
      return { object: 'list', data };
    },
  };
}
