import type { EventEnvelope } from '../events.js';
import type { BusMessage, ConsumeOptions, EventBus, EventHandler, Subscription } from './types.js';

const REDELIVERY_DELAY_MS = 1000;

interface Stored {
  subject: string;
  event: EventEnvelope;
}

function matches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
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
  private readonly consumers = new Map<string, { wake: () => void }>();

  async publish(message: BusMessage): Promise<void> {
    if (this.seen.has(message.msgId)) return;
    this.seen.add(message.msgId);
    this.log.push({ subject: message.subject, event: JSON.parse(Buffer.from(message.data).toString('utf8')) });
    for (const c of this.consumers.values()) c.wake();
  }

  async consume(
    durable: string, subjects: string[], handler: EventHandler, options: ConsumeOptions = {},
  ): Promise<Subscription> {
    let position = 0;
    let stopped = false;
    const sleepers = new Set<() => void>();
    const nextMatching = (): Stored | undefined => {
      for (; position < this.log.length; position++) {
        const stored = this.log[position];
        if (subjects.some((s) => matches(s, stored.subject))) {
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
        while (!stopped) {
          try {
            await handler(next.event, next.subject);
            break;
          } catch {
            await new Promise<void>((resolve) => setTimeout(resolve, REDELIVERY_DELAY_MS).unref());
          }
        }
      }
    };
    const loop = Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker));
    const wake = () => {
      for (const resolve of sleepers) resolve();
      sleepers.clear();
    };
    this.consumers.set(durable, { wake });
    return {
      stop: async () => {
        stopped = true;
        wake();
        this.consumers.delete(durable);
        await loop;
      },
    };
  }

  async close(): Promise<void> {
    for (const c of this.consumers.values()) c.wake();
  }
}
