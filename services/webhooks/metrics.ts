import type { Metrics } from '../platform/metrics.js';
import { ENDPOINT_STATES, type DeliveryStore } from './deliveries.js';

// Webhook delivery as on-call sees it: each attempt's outcome and latency (exhausted ones are the
// merchants who will stop hearing from us), attempts held back by an endpoint's rate, and the queue
// and the endpoints' states read on scrape from the part's tables.

export interface DeliveryMetrics {
  attempted(outcome: 'succeeded' | 'failed' | 'exhausted' | null, manual: boolean, durationMs: number): void;
  /** A claim that got no slot of its endpoint's max_per_second in time and went back to wait. */
  throttled(): void;
}

export function deliveryMetrics(metrics: Metrics | undefined, store: DeliveryStore): DeliveryMetrics {
  if (!metrics) return { attempted: () => undefined, throttled: () => undefined };
  const labels = { outcome: ['succeeded', 'failed', 'exhausted', 'resent'], trigger: ['scheduled', 'manual'] };
  const attempts = metrics.counter('svc_webhook_attempts_total', 'Webhook delivery attempts by outcome (resent: a manual resend that failed)', labels);
  const seconds = metrics.histogram('svc_webhook_attempt_duration_seconds', 'Webhook delivery attempt latency (the HTTP exchange)', labels);
  const exhausted = metrics.counter('svc_webhook_exhausted_total', 'Deliveries that used up their attempts without a 2xx', {});
  const queue = metrics.gauge('svc_webhook_queue_deliveries', 'Deliveries waiting for an attempt or in flight', { state: ['waiting', 'delivering'] });
  queue.onCollect(async (set) => {
    const depth = await store.queueDepth();
    set({ state: 'waiting' }, depth.waiting);
    set({ state: 'delivering' }, depth.delivering);
  });
  const throttled = metrics.counter('svc_webhook_throttled_total', 'Attempts held back by their endpoint\'s max_per_second past their lease margin and handed back', {});
  const endpoints = metrics.gauge('svc_webhook_endpoints', 'Webhook endpoints of every project by state', { state: [...ENDPOINT_STATES] });
  endpoints.onCollect(async (set) => {
    const states = await store.endpointStates();
    for (const state of ENDPOINT_STATES) set({ state }, states[state]);
  });
  return {
    attempted(outcome, manual, durationMs) {
      const l = { outcome: outcome ?? 'resent', trigger: manual ? 'manual' : 'scheduled' };
      attempts.inc(l);
      seconds.observe(l, durationMs / 1000);
      if (outcome === 'exhausted') exhausted.inc({});
    },
    throttled: () => throttled.inc({}),
  };
}
