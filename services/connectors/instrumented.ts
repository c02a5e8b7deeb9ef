import { ATTEMPT_OUTCOMES } from '../contract/enums.js';
import { secondsSince, type Metrics } from '../platform/metrics.js';
import { SpanKind, inSpan, tracingOn } from '../platform/tracing.js';
import type { ConnectorRegistry } from './index.js';
import type { Connector } from './types.js';

// Every call payments makes to a provider, timed and counted by provider, operation and outcome,
// in one place: the registry hands out connectors wrapped here, so payments, refunds, holds,
// reconciliation and payouts are all covered without each call site knowing about metrics. While
// tracing is on, each call is also a CLIENT span of the request's trace.

type Operation = 'authorize' | 'status' | 'refund' | 'capture' | 'cancel' | 'payout' | 'payout_status';
const OPERATIONS: Record<string, Operation> = {
  authorize: 'authorize', getStatus: 'status', refund: 'refund', capture: 'capture', cancel: 'cancel',
  payout: 'payout', payoutStatus: 'payout_status',
};
/** The connectors' normalised outcomes, plus `not_found` (a status query) and `error` (the call threw). */
const OUTCOMES = [...ATTEMPT_OUTCOMES, 'pending', 'not_found', 'error'];

function outcomeOf(result: unknown): string {
  const r = result as { found?: boolean; outcome?: string } | undefined;
  if (r?.found === false) return 'not_found';
  return r?.outcome ?? 'unknown';
}

function series(metrics: Metrics, licensed: readonly string[]) {
  // Provider codes are the registry's: licensed ones by name, demo ones by their prefix.
  const provider = { matches: (v: string) => licensed.includes(v) || /^demo_[a-z]+$/.test(v) };
  const labels = { provider, operation: Object.values(OPERATIONS), outcome: OUTCOMES };
  return {
    calls: metrics.counter('svc_provider_calls_total', 'Calls to payment providers by provider, operation and outcome', labels),
    seconds: metrics.histogram('svc_provider_call_duration_seconds', 'Provider call latency by provider, operation and outcome', labels),
  };
}

function wrap(connector: Connector, provider: string, s: ReturnType<typeof series>): Connector {
  const timed = (fn: (req: unknown) => Promise<unknown>, operation: Operation) => async (req: unknown) => {
    const started = performance.now();
    let outcome = 'error';
    try {
      const call = () => fn.call(connector, req);
      const result = tracingOn()
        ? await inSpan(`provider ${operation}`, SpanKind.CLIENT, { 'svc.provider': provider, 'svc.operation': operation }, async (span) => {
          const r = await call();
          span.setAttribute('svc.outcome', outcomeOf(r));
          return r;
        })
        : await call();
      outcome = outcomeOf(result);
      return result;
    } finally {
      const labels = { provider, operation, outcome };
      s.calls.inc(labels);
      s.seconds.observe(labels, secondsSince(started));
    }
  };
  const made = new Map<PropertyKey, unknown>();
  // A proxy, so optional methods stay absent where the connector has none, and others run on it as `this`.
  return new Proxy(connector, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      if (!made.has(prop)) {
        const operation = typeof prop === 'string' && Object.hasOwn(OPERATIONS, prop) ? OPERATIONS[prop] : undefined;
        made.set(prop, operation ? timed(value as never, operation) : value.bind(target));
      }
      return made.get(prop);
    },
  });
}

/** The registry, its connectors' provider calls recorded in `metrics` (unchanged without one). */
export function instrumentConnectors(
  registry: ConnectorRegistry, metrics: Metrics | undefined, licensed: readonly string[],
): ConnectorRegistry {
  if (!metrics) return registry;
  const s = series(metrics, licensed);
  const cache = new Map<string, Connector | undefined>();
  return {
    forProvider(code) {
      if (!cache.has(code)) {
        const connector = registry.forProvider(code);
        cache.set(code, connector && wrap(connector, code, s));
      }
      return cache.get(code);
    },
  };
}
