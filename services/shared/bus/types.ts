import type { EventEnvelope } from '../events.js';

export interface BusMessage {
  subject: string;
  /** The event id: the broker drops a second publish of the same id (at-least-once, no duplicates). */
  msgId: string;
  data: Uint8Array;
}

/** A throw means "not handled": the message is delivered again later. */
export type EventHandler = (event: EventEnvelope, subject: string) => Promise<void>;

export interface Subscription {
  stop(): Promise<void>;
}

export interface EventBus {
  /** Resolves once the broker has acknowledged the message. */
  publish(message: BusMessage): Promise<void>;
  /** A durable consumer: it resumes where it left off after a restart. */
  consume(durable: string, subjects: string[], handler: EventHandler): Promise<Subscription>;
  /** Finishes in-flight work and disconnects. */
  close(): Promise<void>;
}
