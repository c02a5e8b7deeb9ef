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
