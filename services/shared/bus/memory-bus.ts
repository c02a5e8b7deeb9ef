import type { EventEnvelope } from '../events.js';
import type { BusMessage, EventBus, EventHandler, Subscription } from './types.js';

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
 * matching message in order, again after a handler throws. Nothing survives a restart, which
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

  async consume(durable: string, subjects: string[], handler: EventHandler): Promise<Subscription> {
    let position = 0;
    let stopped = false;
    let wake: () => void = () => undefined;
    const loop = (async () => {
      while (!stopped) {
        const next = this.log[position];
        if (!next) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        if (!subjects.some((s) => matches(s, next.subject))) {
          position++;
          continue;
        }
        try {
          await handler(next.event, next.subject);
          position++;
        } catch {
          await new Promise<void>((resolve) => setTimeout(resolve, REDELIVERY_DELAY_MS).unref());
        }
      }
    })();
    this.consumers.set(durable, { wake: () => wake() });
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
