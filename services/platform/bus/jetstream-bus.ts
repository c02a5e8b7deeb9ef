import { EventEmitter } from 'node:events';
import {
  AckPolicy, DeliverPolicy, ErrorCode, Events, NatsError, StorageType, connect, headers, nanos,
  type JetStreamClient, type JetStreamManager, type JsMsg, type NatsConnection,
} from 'nats';
import type { Logger } from 'pino';
import type { EventEnvelope } from '../../contract/envelope.js';
import { SpanKind, continueTrace } from '../tracing.js';
import { natsConnectionOptions } from './nats-url.js';
import {
  UnpublishableMessage, type BrokerFacts, type BusMessage, type ConsumeOptions, type EventBus, type EventHandler,
  type InOrderOutcome, type Subscription,
} from './types.js';

/** The event's trace context as message headers (broker-checks.ts leaves room for them). */
function traceHeaders(message: BusMessage) {
  if (!message.traceparent) return undefined;
  const h = headers();
  h.set('traceparent', message.traceparent);
  return h;
}

const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;
const REDELIVERY_DELAY_MS = 1000;

export interface JetStreamBusOptions {
  url: string;
  stream: string;
  subjectPrefix: string;
  logger: Logger;
  name: string;
  /**
   * The process's start-up (retry.ts StartUp): the JetStream API calls of consume(), which parts make
   * while they start, are retried under its deadline instead of failing start-up at the first time-out.
   */
  startUp?: { step<T>(name: string, attempt: () => Promise<T>): Promise<T> };
}

/**
 * Events live in one file-backed stream over `<prefix>.>`. Durability of an acknowledged event
 * across a broker crash also needs the server's `sync_interval: always` or a replicated stream:
 * see docs/decisions.md.
 */
export class JetStreamBus implements EventBus {
  private readonly connection = new EventEmitter();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly opts: JetStreamBusOptions,
    /** The stream's max_msg_size when the bus connected (-1: none), for publishInOrder's size check. */
    private readonly streamMaxMsgSize: number,
  ) {
    void this.followStatus();
  }

  /** nats.js reports a dropped connection and each reconnection as status events. */
  private async followStatus(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === Events.Disconnect) this.connection.emit('change', false);
      if (s.type === Events.Reconnect) this.connection.emit('change', true);
    }
  }

  onConnectionChange(listener: (connected: boolean) => void): () => void {
    this.connection.on('change', listener);
    return () => this.connection.off('change', listener);
  }

  static async connect(opts: JetStreamBusOptions): Promise<JetStreamBus> {
    // noAsyncTraces: otherwise every request, so every JetStream publish, captures two stack traces
    // (a time-out NatsError made in advance and the caller's context), about 40 % of a publish's
    // CPU (issue 28); our logs carry an error's message, never its stack.
    const nc = await connect({
      ...natsConnectionOptions(opts.url), name: opts.name, maxReconnectAttempts: -1, noAsyncTraces: true,
    });
    try {
      const jsm = await nc.jetstreamManager();
      const maxMsgSize = await ensureStream(jsm, opts.stream, `${opts.subjectPrefix}.>`);
      return new JetStreamBus(nc, nc.jetstream(), jsm, opts, maxMsgSize);
    } catch (err) {
      // JetStream not ready yet (the caller may try again): leave no connection behind.
      await nc.close().catch(() => undefined);
      throw err;
    }
  }

  async publish(message: BusMessage): Promise<void> {
    try {
      await this.js.publish(message.subject, message.data, { msgID: message.msgId, headers: traceHeaders(message) });
    } catch (err) {
      throw this.tooLarge(err, message.data.length) ?? err;
    }
  }

  /**
   * One connection carries the PUBs in order and the server stores them in order, so they can all
   * leave in one write and be acknowledged together. The refusals a message brings on itself
   * (above max_payload or the stream's max_msg_size) are found before sending: nothing after such
   * a message is sent, and it is refused as UnpublishableMessage, as publish would.
   */
  async publishInOrder(messages: BusMessage[]): Promise<InOrderOutcome[]> {
    const refusals = messages.map((m) => this.refusalBySize(m));
    const tooBig = refusals.findIndex((r) => r !== undefined);
    const sent = tooBig < 0 ? messages : messages.slice(0, tooBig);
    const outcomes: InOrderOutcome[] = await Promise.all(sent.map((m) =>
      this.publish(m).then((): InOrderOutcome => ({ ok: true }), (err: unknown): InOrderOutcome => ({ ok: false, err }))));
    if (tooBig < 0) return outcomes;
    outcomes.push({ ok: false, err: refusals[tooBig] });
    for (let i = tooBig + 1; i < messages.length; i++) outcomes.push({ ok: false, notSent: true });
    return outcomes;
  }

  /** The refusal publish would meet for the message's size (client or stream), found before sending. */
  private refusalBySize(message: BusMessage): UnpublishableMessage | undefined {
    // The headers as the JetStream client sends them: its message id beside ours.
    const h = traceHeaders(message) ?? headers();
    h.set('Nats-Msg-Id', message.msgId);
    const size = message.data.length + (h as unknown as { encode(): Uint8Array }).encode().length;
    const maxPayload = this.nc.info?.max_payload ?? Infinity;
    if (size > maxPayload) {
      return new UnpublishableMessage(`event of ${message.data.length} bytes is above the NATS server's max_payload of ${maxPayload} bytes`);
    }
    if (this.streamMaxMsgSize > 0 && size > this.streamMaxMsgSize) {
      return new UnpublishableMessage(`event of ${message.data.length} bytes is above stream ${this.opts.stream}'s max_msg_size`);
    }
    return undefined;
  }

  /** The server's version and limits and the stream's replicas, for the start-up checks. */
  async facts(): Promise<BrokerFacts> {
    const stream = await this.jsm.streams.info(this.opts.stream);
    return {
      serverVersion: this.nc.info?.version ?? 'unknown',
      maxPayload: this.nc.info?.max_payload ?? 0,
      stream: this.opts.stream,
      streamReplicas: stream.config.num_replicas ?? 1,
      streamMaxMsgSize: stream.config.max_msg_size ?? -1,
    };
  }

  // The client refuses a message above the server's max_payload before sending it; the stream
  // answers one above its max_msg_size with API error 10054. Neither ever succeeds on a retry.
  private tooLarge(err: unknown, bytes: number): UnpublishableMessage | undefined {
    if (!(err instanceof NatsError)) return undefined;
    const nats = err as { code?: string; api_error?: { err_code?: number }; message: string };
    if (nats.code === ErrorCode.MaxPayloadExceeded) {
      return new UnpublishableMessage(
        `event of ${bytes} bytes is above the NATS server's max_payload of ${this.nc.info?.max_payload} bytes`,
      );
    }
    if (nats.api_error?.err_code === 10054 || /message size exceeds maximum/i.test(nats.message)) {
      return new UnpublishableMessage(`event of ${bytes} bytes is above stream ${this.opts.stream}'s max_msg_size`);
    }
    return undefined;
  }

  async consume(
    durable: string, subjects: string[], handler: EventHandler, options: ConsumeOptions = {},
  ): Promise<Subscription> {
    const subscribe = async () => {
      await this.jsm.consumers.add(this.opts.stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        // filter_subjects needs NATS 2.10; a single filter works on 2.9 too.
        ...(subjects.length === 1 ? { filter_subject: subjects[0] } : { filter_subjects: subjects }),
        ack_wait: nanos(30_000),
      });
      const consumer = await this.js.consumers.get(this.opts.stream, durable);
      return consumer.consume({ max_messages: 256 });
    };
    // Adding a durable consumer with the same configuration again is a no-op: the step may repeat it.
    const messages = await (this.opts.startUp?.step(`NATS JetStream consumer ${durable}`, subscribe) ?? subscribe());
    const handle = async (m: JsMsg) => {
      try {
        const event = JSON.parse(Buffer.from(m.data).toString('utf8')) as EventEnvelope;
        await continueTrace(`${durable} process`, SpanKind.CONSUMER, m.headers?.get('traceparent'), {
          'messaging.system': 'nats', 'messaging.destination.name': m.subject, 'messaging.consumer.group.name': durable,
        }, () => handler(event, m.subject));
        m.ack();
      } catch (err) {
        this.opts.logger.warn({ err: (err as Error).message, subject: m.subject }, 'event handler failed; redelivering');
        m.nak(REDELIVERY_DELAY_MS);
      }
    };
    const limit = Math.max(1, options.concurrency ?? 1);
    const done = (async () => {
      // Handled side by side up to the limit: acks of a batch resolved together go out in one write.
      const inFlight = new Set<Promise<void>>();
      for await (const m of messages) {
        const handled: Promise<void> = handle(m).finally(() => inFlight.delete(handled));
        inFlight.add(handled);
        if (inFlight.size >= limit) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
    })();
    return {
      stop: async () => {
        await messages.close();
        await done;
      },
    };
  }

  async pending(durable: string): Promise<number> {
    const info = await this.jsm.consumers.info(this.opts.stream, durable);
    return info.num_pending + info.num_ack_pending;
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}

/** Creates the stream or adds the subject to it; returns its max_msg_size (-1: no limit of its own). */
async function ensureStream(jsm: JetStreamManager, name: string, subject: string): Promise<number> {
  try {
    const info = await jsm.streams.info(name);
    if (!info.config.subjects?.includes(subject)) {
      await jsm.streams.update(name, { ...info.config, subjects: [...(info.config.subjects ?? []), subject] });
    }
    return info.config.max_msg_size ?? -1;
  } catch (err) {
    if (!/stream not found/i.test((err as Error).message)) throw err;
    await jsm.streams.add({
      name,
      subjects: [subject],
      storage: StorageType.File,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    });
    return -1;
  }
}
