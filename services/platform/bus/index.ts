// The event bus: JetStream in deployments, an in-process bus for the embedded default.
export type {
  BrokerFacts, BusMessage, EventBus, EventHandler, InOrderOutcome, PublishReceipt, StreamCheck, Subscription,
} from './types.js';
export { UnpublishableMessage } from './types.js';
export { checkBroker, brokerFindings } from './broker-checks.js';
export { JetStreamBus } from './jetstream-bus.js';
export { MemoryBus } from './memory-bus.js';
export { measuredBus, watchBus } from './consumer-metrics.js';
export { packMessage } from './event-pack.js';
