// The event bus: JetStream in deployments, an in-process bus for the embedded default.
export type { BusMessage, EventBus, EventHandler, Subscription } from './types.js';
export { JetStreamBus } from './jetstream-bus.js';
export { MemoryBus } from './memory-bus.js';
