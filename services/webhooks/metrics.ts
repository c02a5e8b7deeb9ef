import type { Metrics } from '../platform/index.js';
import type { DeliveryStore } from './deliveries.js';

// Webhook delivery as on-call sees it: each attempt's outcome and latency (exhausted ones are the
// merchants who will stop hearing from us), and the queue read on scrape from the deliveries table.

export interface DeliveryMetrics {
  attempted(outcome: 'succeeded' | 'failed' | 'exhausted' | null, manual: boolean, durationMs: number): void;
}

export function deliveryMetrics(metrics: Metrics | undefined, store: DeliveryStore): DeliveryMetrics {
  if (!metrics) return { attempted: () => undefined };
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
  return {
    attempted(outcome, manual, durationMs) {
      const l = { outcome: outcome ?? 'resent', trigger: manual ? 'manual' : 'scheduled' };
      attempts.inc(l);
      seconds.observe(l, durationMs / 1000);
      if (outcome === 'exhausted') exhausted.inc({});
    },
  };
}
