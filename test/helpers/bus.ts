import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { JetStreamBus, MemoryBus, type EventBus } from '../../services/platform/bus/index.js';
import { createLogger } from '../../services/platform/logger.js';
import { requireInCi } from './database.js';

export interface TestBus {
  bus: EventBus;
  /** Set when the bus is real JetStream. */
  nats?: { url: string; stream: string; subjectPrefix: string };
  close(): Promise<void>;
}

/**
 * A stream and subject prefix of its own per test, on NATS_URL (or `natsUrl`, a file's own
 * nats-server); the in-process bus without either.
 */
export async function createTestBus(natsUrl?: string): Promise<TestBus> {
  requireInCi('NATS_URL');
  const url = natsUrl ?? process.env.NATS_URL;
  if (!url) {
    const bus = new MemoryBus();
    return { bus, close: () => bus.close() };
  }
  const suffix = randomBytes(5).toString('hex');
  const nats = { url, stream: `SVC_TEST_${suffix}`, subjectPrefix: `svctest.${suffix}` };
  const bus = await JetStreamBus.connect({ ...nats, logger: createLogger('test-bus', 'silent'), name: 'test' });
  return {
    bus,
    nats,
    async close() {
      await bus.close();
      await deleteStream(url, nats.stream);
    },
  };
}

export async function deleteStream(url: string, stream: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    await (await nc.jetstreamManager()).streams.delete(stream).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

/**
 * The events of one message read straight off the stream, as any JetStream consumer would, each
 * with its subject: the event itself on the message's subject, with its id as the message id; or
 * a pack's events (services/platform/bus/event-pack.ts) on their own subjects, with the ids of its
 * first and last event as the message id. Throws when the message id is not so.
 */
export function eventsOfMessage(subject: string, data: Uint8Array, msgId: string | undefined): Array<{ subject: string; event: any }> {
  const body = JSON.parse(Buffer.from(data).toString('utf8'));
  const events: Array<{ subject: string; event: any }> = body.pack ? body.events : [{ subject, event: body }];
  const expected = body.pack ? `pack:${events[0].event.id}:${events[events.length - 1].event.id}` : body.id;
  if (msgId !== expected) throw new Error(`message id ${msgId}, expected ${expected}`);
  return events;
}
