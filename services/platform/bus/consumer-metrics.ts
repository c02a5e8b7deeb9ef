import { SERVICE_NAMES, type ServiceName } from '../config.js';
import { type Metrics, secondsSince } from '../metrics.js';
import type { EventBus } from './types.js';

/** The durable consumers whose lag and processing time are exported; any other name is `other`. */
const CONSUMERS = ['ledger', 'webhooks', 'routing-risk'];

/**
 * The bus as a part's consumer sees it, with each consumer measured: messages waiting for it
 * (`svc_consumer_pending`, asked of the broker on scrape) and how long its handler takes per message
 * (`svc_consumer_processing_seconds`, by outcome: a throw means the message is delivered again).
 */
export function measuredBus(metrics: Metrics | undefined, bus: EventBus): EventBus {
  if (!metrics) return bus;
  const pending = metrics.gauge('svc_consumer_pending', 'Messages not yet acknowledged by a durable consumer (JetStream num_pending + num_ack_pending)', {
    consumer: CONSUMERS,
  });
  const seconds = metrics.histogram('svc_consumer_processing_seconds', 'Time a durable consumer\'s handler takes per message', {
    consumer: CONSUMERS, outcome: ['ok', 'error'],
  });
  return {
    publish: (message) => bus.publish(message),
    publishInOrder: bus.publishInOrder?.bind(bus),
    close: () => bus.close(),
    onConnectionChange: bus.onConnectionChange?.bind(bus),
    onStreamCheck: bus.onStreamCheck?.bind(bus),
    async consume(durable, subjects, handler, options) {
      pending.onCollect(async (set) => set({ consumer: durable }, (await bus.pending?.(durable)) ?? 0));
      return bus.consume(durable, subjects, async (event, subject) => {
        const started = performance.now();
        try {
          await handler(event, subject);
          seconds.observe({ consumer: durable, outcome: 'ok' }, secondsSince(started));
        } catch (err) {
          seconds.observe({ consumer: durable, outcome: 'error' }, secondsSince(started));
          throw err;
        }
      }, options);
    },
  };
}

/** `svc_event_bus_up`: 1 while `part` can publish and consume (the bus's onConnectionChange), else 0. */
export function watchBus(metrics: Metrics, part: ServiceName, bus: EventBus): void {
  const up = metrics.gauge(
    'svc_event_bus_up', 'Whether the part can publish and consume events: connected, with its stream and consumers (1) or not (0)',
    { part: SERVICE_NAMES },
  );
  let usable = true;
  bus.onConnectionChange?.((now) => {
    usable = now;
  });
  up.onCollect((set) => set({ part }, usable ? 1 : 0));
}
