// webhooks: stores every event and delivers it, signed, to merchants' endpoints (WebhooksService).
// Owns schema webhooks. Its durable consumer `webhooks` stores each event once with one delivery
// per subscribed endpoint; its dispatcher makes the attempts, retries on the contract's schedule
// and keeps every attempt, within each endpoint's rate (throttle.ts) and a receiver's Retry-After;
// its RPCs manage endpoints (with their health), show history, resend (an extra attempt outside
// the schedule, paced like every attempt) one delivery or all failed since a time (recovery.ts, one
// recovery per endpoint at a time, none for a disabled endpoint), send test events, list
// events (events-api.ts, GET /v1/events) and narrate a payment's deliveries for its timeline
// (timeline.ts). Its sweep (sweep.ts) disables endpoints failing for days, leaving the gateway a
// notice to mail, and deletes events and attempts past retention.
import { WebhooksService } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { measuredBus, type Subscription } from '../platform/bus/index.js';
import { assemblePart, type ServiceDeps, type ServicePart } from '../platform/part.js';
import { createSecretBox, rememberingOpened } from '../platform/secret-box.js';
import type { PartInfo } from '../platform/standalone.js';
import { createDeliveryStore } from './deliveries.js';
import { createDispatcher } from './dispatcher.js';
import { deliveryMetrics } from './metrics.js';
import { createEndpointStore } from './endpoints.js';
import { createEventsReader } from './events-api.js';
import { consumeEvents } from './fan-out.js';
import { createRecoveryStore } from './recoveries.js';
import { createRecovery } from './recovery.js';
import { createSender } from './sender.js';
import { startSweep } from './sweep.js';
import { createThrottle } from './throttle.js';
import { webhooksRoutes } from './service.js';

export const PART: PartInfo = { name: 'webhooks', schema: 'webhooks', dir: 'services/webhooks' };

export { verifyWebhookSignature } from './verify.js';

// Events held at once by the consumer; what it holds while a batch is written is stored by the next
// statement, so under a burst up to this many events (each fanned out to its endpoints) share one.
const EVENTS_IN_FLIGHT = 128;

export function build(deps: ServiceDeps): ServicePart {
  const { config } = deps;
  const policy = { allowLoopbackInTest: config.webhooksAllowLoopbackInTest };
  // Without WEBHOOK_SECRET_KEY signing secrets are stored as they are (services/platform/secret-box.ts):
  // allowed in one process only (main.ts refuses it on its own), and said at every start.
  const box = createSecretBox(config.webhookSecretKey, { variable: 'WEBHOOK_SECRET_KEY', allowPlain: true });
  if (!config.webhookSecretKey) {
    deps.logger.warn('WEBHOOK_SECRET_KEY is not set: webhook endpoint signing secrets are stored unencrypted. ' +
      'Set it (32 bytes, e.g. `openssl rand -hex 32`) in any deployment that is not a local trial.');
  }
  const endpoints = createEndpointStore(deps.pool, box, policy);
  const deliveries = createDeliveryStore(deps.pool);
  const sender = createSender({ timeoutMs: config.webhookTimeoutMs, policy });
  const throttle = createThrottle(deps.pool, deps.clock);
  const dispatcher = createDispatcher({
    store: deliveries,
    sender,
    box: rememberingOpened(box),
    clock: deps.clock,
    logger: deps.logger,
    timeoutMs: config.webhookTimeoutMs,
    maxAttempts: config.webhookMaxAttempts,
    concurrency: config.webhookConcurrency,
    perEndpoint: config.webhookEndpointConcurrency,
    hostRatePerSecond: config.webhookHostRatePerSecond,
    pollMs: config.webhookPollMs,
    metrics: deliveryMetrics(deps.metrics, deliveries),
    throttle,
  });
  const recovery = createRecovery({
    deliveries, recoveries: createRecoveryStore(deps.pool), dispatcher, throttle, clock: deps.clock, logger: deps.logger,
  });
  let subscription: Subscription | undefined;
  let sweep: ReturnType<typeof startSweep> | undefined;

  return assemblePart(deps, {
    name: PART.name,
    services: [WebhooksService.typeName],
    routes: webhooksRoutes({
      pool: deps.pool, endpoints, deliveries, dispatcher, events: createEventsReader(deps.pool), recovery, clock: deps.clock,
    }),
    async start() {
      if (config.webhookSecretKey) {
        const sealed = await endpoints.sealPlainSecrets();
        if (sealed > 0) deps.logger.info({ sealed }, 'webhook signing secrets stored before WEBHOOK_SECRET_KEY are now encrypted');
      }
      dispatcher.start();
      sweep = startSweep({
        pool: deps.pool, clock: deps.clock, logger: deps.logger, retentionDays: config.webhookRetentionDays,
        disableAfterHours: config.webhookDisableAfterHours, everyMs: config.webhookSweepMs,
      });
      subscription = await consumeEvents({
        pool: deps.pool,
        bus: measuredBus(deps.metrics, deps.bus),
        clock: deps.clock,
        logger: deps.logger,
        subjectPrefix: config.natsSubjectPrefix,
        inFlight: EVENTS_IN_FLIGHT,
        waitMs: config.webhookEventsWaitMs,
        onDeliveries: () => dispatcher.kick(),
      });
    },
    async stop() {
      // Stop taking events first; attempts under way finish (bounded by the time-out) and are recorded.
      await subscription?.stop();
      await sweep?.stop();
      await recovery.stop();
      await dispatcher.stop();
      await sender.close();
    },
  });
}
