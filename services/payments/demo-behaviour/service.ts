import type { ConnectRouter } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  DemoBehaviourService, type DemoBehaviourSchema, type DemoSegment as DemoSegmentMessage,
} from '../../../proto/gen/svc/payments/v1/demo_behaviour_pb.js';
import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Clock } from '../../platform/clock.js';
import { requireScope } from '../../platform/request-guards.js';
import { DEMO_PROVIDERS, invalidField, PAYMENT_METHOD_TYPES, toConnectError } from '../../contract/index.js';
import { limitReached, MAX_DEMO_SEGMENTS } from '../../contract/project-caps.js';
import { CURRENCIES } from '../../contract/currencies.js';
import type { BehaviourChange, DemoBehaviourRecord, DemoBehaviourStore, DemoSegment } from './store.js';

// DemoBehaviourService: the one place a project's demo behaviour is validated (the management API
// and the dashboard reach it through the gateway). Every refusal names its field.

/** Latency a demo provider may add: beyond the default provider deadline (10 s) it is an outage, not latency. */
const MAX_LATENCY_MS = 10_000;
/** An outage of a day at most: longer is a provider gone, which a rule without it says better. */
const MAX_OUTAGE_MINUTES = 1_440;

function testScope(scope: Scope | undefined) {
  const s = requireScope(scope);
  if (s.mode !== 'test') {
    throw invalidField('mode', 'Demo behaviour applies to test mode only: live payments never reach a demo provider');
  }
  return s;
}

function provider(value: string): string {
  if (!(DEMO_PROVIDERS as readonly string[]).includes(value)) {
    throw invalidField('provider', `provider must be a demo provider: ${DEMO_PROVIDERS.join(', ')}`);
  }
  return value;
}

function paymentMethod(value: string): string {
  if (!(PAYMENT_METHOD_TYPES as readonly string[]).includes(value)) {
    throw invalidField('payment_method', `payment_method must be one of ${PAYMENT_METHOD_TYPES.join(', ')}`);
  }
  return value;
}

function currency(value: string): string {
  const c = value.toUpperCase();
  if (!CURRENCIES.has(c)) throw invalidField('currency', 'currency must be an ISO 4217 currency code');
  return c;
}

function country(value: string): string {
  if (value === '*' || value === '') return '*';
  if (!/^[A-Za-z]{2}$/.test(value)) throw invalidField('country', 'country must be two letters (ISO 3166-1) or *');
  return value.toUpperCase();
}

function segmentOf(s: DemoSegmentMessage | undefined): DemoSegment {
  if (!s) throw invalidField('provider', 'provider, payment_method and currency are required');
  return { provider: provider(s.provider), paymentMethod: paymentMethod(s.paymentMethod), currency: currency(s.currency), country: country(s.country) };
}

function rate(value: number | undefined, param: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value < 0 || value > 1) throw invalidField(param, `${param} must be between 0 and 1`);
  return value;
}

function whole(value: bigint | undefined, max: number, param: string): number | undefined {
  if (value === undefined) return undefined;
  if (value < 0n || value > BigInt(max)) throw invalidField(param, `${param} must be a whole number from 0 to ${max}`);
  return Number(value);
}

function behaviourMessage(r: DemoBehaviourRecord): MessageInitShape<typeof DemoBehaviourSchema> {
  return {
    segment: { provider: r.segment.provider, paymentMethod: r.segment.paymentMethod, currency: r.segment.currency, country: r.segment.country },
    approvalRate: r.approvalRate,
    technicalErrorRate: r.technicalErrorRate,
    latencyMs: r.latencyMs,
    outageUntil: r.outageUntil ? timestampFromDate(r.outageUntil) : undefined,
    lateSuccessRate: r.lateSuccessRate,
    updatedAt: timestampFromDate(r.updatedAt),
  };
}

export function demoBehaviourRoutes(store: DemoBehaviourStore, clock: Clock) {
  return (router: ConnectRouter) => {
    router.service(DemoBehaviourService, {
      async listDemoBehaviour(req) {
        return { behaviours: (await store.list(testScope(req.scope))).map(behaviourMessage) };
      },
      async setDemoBehaviour(req) {
        const scope = testScope(req.scope);
        const segment = segmentOf(req.segment);
        const minutes = whole(req.outageMinutes, MAX_OUTAGE_MINUTES, 'outage_minutes');
        const change: BehaviourChange = {
          approvalRate: rate(req.approvalRate, 'approval_rate'),
          technicalErrorRate: rate(req.technicalErrorRate, 'technical_error_rate'),
          latencyMs: whole(req.latencyMs, MAX_LATENCY_MS, 'latency_ms'),
          lateSuccessRate: rate(req.lateSuccessRate, 'late_success_rate'),
          // "From now": the outage's end is fixed when it is set, so replicas agree on it.
          ...(minutes !== undefined && { outageUntil: minutes === 0 ? null : new Date(clock.now().getTime() + minutes * 60_000) }),
        };
        const stored = await store.set(scope, segment, change, MAX_DEMO_SEGMENTS);
        if (stored === 'limit_reached') {
          throw toConnectError(limitReached('sandbox behaviour segments', MAX_DEMO_SEGMENTS, 'clear the ones it no longer uses first.'));
        }
        return { behaviour: behaviourMessage(stored) };
      },
      async clearDemoBehaviour(req) {
        const scope = testScope(req.scope);
        const removed = await store.clear(scope, {
          ...(req.provider !== undefined && { provider: provider(req.provider) }),
          ...(req.paymentMethod !== undefined && { paymentMethod: paymentMethod(req.paymentMethod) }),
          ...(req.currency !== undefined && { currency: currency(req.currency) }),
          ...(req.country !== undefined && { country: country(req.country) }),
        });
        return { behaviours: removed.map(behaviourMessage) };
      },
    });
  };
}
