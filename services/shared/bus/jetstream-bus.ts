import {
  AckPolicy, DeliverPolicy, StorageType, connect, nanos,
  type JetStreamClient, type JetStreamManager, type NatsConnection,
} from 'nats';
import type { Logger } from 'pino';
import type { EventEnvelope } from '../events.js';
import { natsConnectionOptions } from './nats-url.js';
import type { BusMessage, EventBus, EventHandler, Subscription } from './types.js';

const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;
const REDELIVERY_DELAY_MS = 1000;

export interface JetStreamBusOptions {
  url: string;
  stream: string;
  subjectPrefix: string;
  logger: Logger;
  name: string;
}

/**
 * Events live in one file-backed stream over `<prefix>.>`. Durability of an acknowledged event
 * across a broker crash also needs the server's `sync_interval: always` or a replicated stream:
 * see docs/decisions.md.
 */
export class JetStreamBus implements EventBus {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly opts: JetStreamBusOptions,
  ) {}

  static async connect(opts: JetStreamBusOptions): Promise<JetStreamBus> {
    const nc = await connect({ ...natsConnectionOptions(opts.url), name: opts.name, maxReconnectAttempts: -1 });
    const jsm = await nc.jetstreamManager();
    await ensureStream(jsm, opts.stream, `${opts.subjectPrefix}.>`);
    return new JetStreamBus(nc, nc.jetstream(), jsm, opts);
  }

  async publish(message: BusMessage): Promise<void> {
    await this.js.publish(message.subject, message.data, { msgID: message.msgId });
  }

  async consume(durable: string, subjects: string[], handler: EventHandler): Promise<Subscription> {
    await this.jsm.consumers.add(this.opts.stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      // filter_subjects needs NATS 2.10; a single filter works on 2.9 too.
      ...(subjects.length === 1 ? { filter_subject: subjects[0] } : { filter_subjects: subjects }),
      ack_wait: nanos(30_000),
    });
    const consumer = await this.js.consumers.get(this.opts.stream, durable);
    const messages = await consumer.consume({ max_messages: 256 });
    const done = (async () => {
      for await (const m of messages) {
        try {
          await handler(JSON.parse(Buffer.from(m.data).toString('utf8')) as EventEnvelope, m.subject);
          m.ack();
        } catch (err) {
          this.opts.logger.warn({ err: (err as Error).message, subject: m.subject }, 'event handler failed; redelivering');
          m.nak(REDELIVERY_DELAY_MS);
        }
      }
    })();
    return {
      stop: async () => {
        await messages.close();
        await done;
      },
    };
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}

async function ensureStream(jsm: JetStreamManager, name: string, subject: string): Promise<void> {
  try {
    const info = await jsm.streams.info(name);
    if (!info.config.subjects?.includes(subject)) {
      await jsm.streams.update(name, { ...info.config, subjects: [...(info.config.subjects ?? []), subject] });
    }
  } catch (err) {
    if (!/stream not found/i.test((err as Error).message)) throw err;
    await jsm.streams.add({
      name,
      subjects: [subject],
      storage: StorageType.File,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    });
  }
}
