import { SpanKind, continueTrace } from '../tracing.js';
import { handleEach, subjectMatches, unpack, type PackedEvent } from './event-pack.js';
import type { BusMessage, ConsumeOptions, EventBus, EventHandler, Subscription } from './types.js';

const REDELIVERY_DELAY_MS = 1000;

interface Stored {
  subject: string;
  /** The message's events: one, or a pack's (event-pack.ts), each with its subject and trace context. */
  events: PackedEvent[];
}

/**
 * The embedded default's bus: one process, no broker. It keeps JetStream's semantics that
 * consumers rely on: a message id is stored once, and each durable consumer sees every
 * matching message in order (one at a time unless it asks for more at once), again after a
 * handler throws. Nothing survives a restart, which
 * is safe because the outbox only marks rows sent after publish and consumers are idempotent.
 */
export class MemoryBus implements EventBus {
  private readonly log: Stored[] = [];
  private readonly seen = new Set<string>();
  private readonly consumers = new Map<string, { wake: () => void; pending: () => number }>();

  async publish(message: BusMessage): Promise<void> {
    if (this.seen.has(message.msgId)) return;
    // Unpacked once here: a pack this code cannot read is refused to the publisher instead.
    const events = unpack(message.subject, message.data, message.traceparent);
    this.seen.add(message.msgId);
    this.log.push({ subject: message.subject, events });
    for (const c of this.consumers.values()) c.wake();
  }

  async consume(
    durable: string, subjects: string[], handler: EventHandler, options: ConsumeOptions = {},
  ): Promise<Subscription> {
    let position = 0;
    let inFlight = 0;
    let stopped = false;
    const sleepers = new Set<() => void>();
    const nextMatching = (): Stored | undefined => {
      for (; position < this.log.length; position++) {
        const stored = this.log[position];
        if (subjects.some((s) => subjectMatches(s, stored.subject))) {
          position++;
          return stored;
        }
      }
      return undefined;
    };
    // Each worker takes the next message and retries it until handled; with one worker (the
    // default) the consumer sees every message in order, a failed one again before the next.
    const worker = async () => {
      while (!stopped) {
        const next = nextMatching();
        if (!next) {
          await new Promise<void>((resolve) => sleepers.add(resolve));
          continue;
        }
        inFlight++;
        while (!stopped) {
          try {
            await handleEach(next.events, subjects, ({ subject, event, traceparent }) => continueTrace(
              `${durable} process`, SpanKind.CONSUMER, traceparent, {
                'messaging.system': 'memory', 'messaging.destination.name': subject, 'messaging.consumer.group.name': durable,
              }, () => handler(event, subject),
            ));
            break;
          } catch {
            await new Promise<void>((resolve) => setTimeout(resolve, REDELIVERY_DELAY_MS).unref());
          }
        }
        inFlight--;
      }
    };
    const loop = Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker));
    const wake = () => {
      for (const resolve of sleepers) resolve();
      sleepers.clear();
    };
    // Like JetStream's num_pending + num_ack_pending: matching messages not yet taken, plus those in hand.
    const pending = () => inFlight + this.log.slice(position).filter((m) => subjects.some((s) => subjectMatches(s, m.subject))).length;
    this.consumers.set(durable, { wake, pending });
    return {
      stop: async () => {
        stopped = true;
        wake();
        this.consumers.delete(durable);
        await loop;
      },
    };
  }

  async pending(durable: string): Promise<number> {
    return this.consumers.get(durable)?.pending() ?? 0;
  }

  async close(): Promise<void> {
    for (const c of this.consumers.values()) c.wake();
  }
}
