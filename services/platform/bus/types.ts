import type { EventEnvelope } from '../../contract/envelope.js';

export interface BusMessage {
  subject: string;
  /** The event id: the broker drops a second publish of the same id (at-least-once, no duplicates). */
  msgId: string;
  data: Uint8Array;
  /** W3C trace context of the event (a `traceparent` message header); consumers continue its trace. */
  traceparent?: string;
}

/** A throw means "not handled": the message is delivered again later. */
export type EventHandler = (event: EventEnvelope, subject: string) => Promise<void>;

export interface ConsumeOptions {
  /**
   * Messages handed to the handler at once (default 1: one after another). More let a handler
   * that batches (services/platform/batcher.ts) write many events per statement; each message is
   * still acknowledged, or delivered again, by its own outcome.
   */
  concurrency?: number;
}

export interface Subscription {
  stop(): Promise<void>;
}

/**
 * Where the broker stored a message: the stream's creation time (its identity: a stream lost and
 * created again has another) and the message's sequence in it. The outbox keeps both with the row.
 */
export interface PublishReceipt {
  streamCreated: string;
  seq: number;
}

/** What became of each message of publishInOrder: acknowledged, refused (the error), or not sent. */
export type InOrderOutcome = { ok: true; receipt?: PublishReceipt } | { ok: false; err: unknown } | { ok: false; notSent: true };

/** What a bus found when it checked its stream (services/platform/outbox-resend.ts acts on it). */
export interface StreamCheck {
  /** The stream's creation time, as the broker tells it. */
  streamCreated: string;
  /** Every message up to this sequence has been acknowledged by every consumer that takes it. */
  consumedSeq: number;
}

export interface EventBus {
  /** Resolves once the broker has acknowledged the message, with where it stored it if the bus can tell. */
  publish(message: BusMessage): Promise<PublishReceipt | void>;
  /**
   * Publishes messages of one aggregate in their order without awaiting each acknowledgement before
   * sending the next (one round trip for all). A message the bus can tell it will refuse (its size)
   * is refused before anything after it is sent, so nothing overtakes it. A bus without it
   * publishes one message at a time (the relay awaits each).
   */
  publishInOrder?(messages: BusMessage[]): Promise<InOrderOutcome[]>;
  /** A durable consumer: it resumes where it left off after a restart. */
  consume(durable: string, subjects: string[], handler: EventHandler, options?: ConsumeOptions): Promise<Subscription>;
  /** Messages a durable consumer has not acknowledged yet (waiting or in flight); 0 for one it does not know. */
  pending?(durable: string): Promise<number>;
  /** Finishes in-flight work and disconnects. */
  close(): Promise<void>;
  /**
   * Calls `listener` with false when the bus cannot publish or consume (the broker connection
   * dropped, or its stream or a consumer is missing and not yet made again) and true when it can
   * again; returns the unsubscribe. A bus without it (the in-process one) always can.
   */
  onConnectionChange?(listener: (connected: boolean) => void): () => void;
  /** Calls `listener` after each check of the stream the bus makes (periodic, and on reconnect); returns the unsubscribe. */
  onStreamCheck?(listener: (check: StreamCheck) => void): () => void;
}

/**
 * What publish throws for a message the bus can never accept as it is (larger than the server's
 * max_payload or the stream's max_msg_size): retrying cannot help, so the outbox parks it at once.
 */
export class UnpublishableMessage extends Error {
  override readonly name = 'UnpublishableMessage';
}

/** What a broker tells a client about itself, read at start-up (services/platform/bus/broker-checks.ts). */
export interface BrokerFacts {
  serverVersion: string;
  /** The server's max_payload: the largest message, headers included, it takes from a client. */
  maxPayload: number;
  stream: string;
  streamReplicas: number;
  /** The stream's own message size limit; -1 when it has none. */
  streamMaxMsgSize: number;
}
