import { EventEmitter } from 'node:events';
import {
  AckPolicy, DeliverPolicy, ErrorCode, Events, NatsError, connect, headers, nanos,
  type JetStreamClient, type JetStreamManager, type JsMsg, type NatsConnection,
} from 'nats';
import type { Logger } from 'pino';
import { SpanKind, continueTrace } from '../tracing.js';
import { ConsumerLoop } from './consumer-loop.js';
import { UnreadablePack, handleEach, unpack } from './event-pack.js';
import { natsConnectionOptions } from './nats-url.js';
import { consumedSeq, ensureStream, listConsumers, type StreamSpec } from './stream-setup.js';
import {
  UnpublishableMessage, type BrokerFacts, type BusMessage, type ConsumeOptions, type EventBus, type EventHandler,
  type InOrderOutcome, type PublishReceipt, type StreamCheck, type Subscription,
} from './types.js';

/** The event's trace context as message headers (broker-checks.ts leaves room for them). */
function traceHeaders(message: BusMessage) {
  if (!message.traceparent) return undefined;
  const h = headers();
  h.set('traceparent', message.traceparent);
  return h;
}

const REDELIVERY_DELAY_MS = 1000;
/** How often the bus checks its stream and consumers when nothing prompts it. */
const DEFAULT_CHECK_INTERVAL_MS = 5_000;

/** A publish or an API call that found no stream behind the subject: the stream is gone. */
function streamMissing(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '503' || /no responders|stream not found/i.test(e?.message ?? '');
}

export interface JetStreamBusOptions {
  url: string;
  stream: string;
  subjectPrefix: string;
  logger: Logger;
  name: string;
  /** The stream's replicas (NATS_STREAM_REPLICAS; default 1) and placement. */
  replicas?: number;
  placement?: StreamSpec['placement'];
  /** How often the stream and the consumers are checked (and made again if missing); default 5 s. */
  checkIntervalMs?: number;
  /**
   * The process's start-up (retry.ts StartUp): the JetStream API calls of consume(), which parts make
   * while they start, are retried under its deadline instead of failing start-up at the first time-out.
   */
  startUp?: { step<T>(name: string, attempt: () => Promise<T>): Promise<T> };
}

/**
 * Events live in one file-backed stream over `<prefix>.>`. Durability of an acknowledged event
 * across a broker crash also needs the server's `sync_interval: always` or a replicated stream:
 * see docs/decisions.md. A broker that comes back without the stream (its store lost) is healed
 * here: every check (periodic, on reconnect, after a publish or a consumer found it missing) makes
 * the stream and this process's consumers again, and tells onStreamCheck listeners what it found,
 * so the outboxes publish again what the lost stream held (outbox-resend.ts).
 */
export class JetStreamBus implements EventBus {
  private readonly events = new EventEmitter();
  private readonly loops = new Set<ConsumerLoop>();
  private connected = true;
  private streamOk = true;
  private usable = true;
  /** The stream's creation time at the last check: its identity. */
  private streamCreated: string;
  private checking: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly opts: JetStreamBusOptions,
    /** The stream's max_msg_size at the last check (-1: none), for publishInOrder's size check. */
    private streamMaxMsgSize: number,
    created: string,
  ) {
    this.streamCreated = created;
    void this.followStatus();
    this.timer = setInterval(() => void this.checkStream(), opts.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** nats.js reports a dropped connection and each reconnection as status events. */
  private async followStatus(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === Events.Disconnect) {
        this.connected = false;
        this.updateUsable();
      }
      if (s.type === Events.Reconnect) {
        this.connected = true;
        // The server may have come back without the stream: not usable until the check says so.
        this.streamOk = false;
        this.updateUsable();
        void this.checkStream();
      }
    }
  }

  private updateUsable(): void {
    const usable = this.connected && this.streamOk && [...this.loops].every((l) => l.ok);
    if (usable === this.usable) return;
    this.usable = usable;
    this.events.emit('usable', usable);
  }

  onConnectionChange(listener: (connected: boolean) => void): () => void {
    this.events.on('usable', listener);
    return () => this.events.off('usable', listener);
  }

  onStreamCheck(listener: (check: StreamCheck) => void): () => void {
    this.events.on('check', listener);
    return () => this.events.off('check', listener);
  }

  private spec(): StreamSpec {
    return {
      name: this.opts.stream, subject: `${this.opts.subjectPrefix}.>`, replicas: this.opts.replicas, placement: this.opts.placement,
    };
  }

  /**
   * Makes the stream again if it is missing, restarts the consumers that are missing or that
   * followed a stream since replaced, and tells the listeners what the stream holds. One at a time.
   */
  checkStream(): Promise<void> {
    this.checking ??= this.runCheck().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async runCheck(): Promise<void> {
    if (this.nc.isClosed()) return;
    try {
      const info = await ensureStream(this.jsm, this.spec(), this.opts.logger);
      const consumers = await listConsumers(this.jsm, this.opts.stream);
      // By time, not text: servers of a cluster may write the same instant with other digits.
      const replaced = Date.parse(info.created) !== Date.parse(this.streamCreated);
      if (replaced) {
        this.opts.logger.warn(
          { stream: this.opts.stream, was: this.streamCreated, now: info.created },
          'NATS stream was lost and made again (the server came back without it); consumers and outboxes catch up',
        );
      }
      this.streamCreated = info.created;
      this.streamMaxMsgSize = info.config.max_msg_size ?? -1;
      const present = new Set(consumers.map((c) => c.name));
      for (const loop of this.loops) if (replaced || !present.has(loop.durable)) loop.restart();
      if (!this.streamOk) this.opts.logger.info({ stream: this.opts.stream }, 'NATS stream available again');
      this.streamOk = true;
      this.updateUsable();
      this.events.emit('check', { streamCreated: info.created, consumedSeq: consumedSeq(info.state.last_seq, consumers) });
    } catch (err) {
      if (this.streamOk && this.connected) {
        this.opts.logger.warn({ stream: this.opts.stream, err: (err as Error).message }, 'NATS stream check failed: not ready until it passes');
      }
      this.streamOk = false;
      this.updateUsable();
    }
  }

  static async connect(opts: JetStreamBusOptions): Promise<JetStreamBus> {
    // noAsyncTraces: otherwise every request, so every JetStream publish, captures two stack traces
    // (a time-out NatsError made in advance and the caller's context), about 40 % of a publish's
    // CPU; our logs carry an error's message, never its stack.
    const nc = await connect({
      ...natsConnectionOptions(opts.url), name: opts.name, maxReconnectAttempts: -1, noAsyncTraces: true,
    });
    try {
      const jsm = await nc.jetstreamManager();
      const info = await ensureStream(jsm, {
        name: opts.stream, subject: `${opts.subjectPrefix}.>`, replicas: opts.replicas, placement: opts.placement,
      }, opts.logger);
      return new JetStreamBus(nc, nc.jetstream(), jsm, opts, info.config.max_msg_size ?? -1, info.created);
    } catch (err) {
      // JetStream not ready yet (the caller may try again): leave no connection behind.
      await nc.close().catch(() => undefined);
      throw err;
    }
  }

  async publish(message: BusMessage): Promise<PublishReceipt> {
    try {
      const ack = await this.js.publish(message.subject, message.data, { msgID: message.msgId, headers: traceHeaders(message) });
      return { streamCreated: this.streamCreated, seq: ack.seq };
    } catch (err) {
      if (streamMissing(err)) {
        this.streamOk = false;
        this.updateUsable();
        void this.checkStream();
      }
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
      this.publish(m).then((receipt): InOrderOutcome => ({ ok: true, receipt }), (err: unknown): InOrderOutcome => ({ ok: false, err }))));
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
      // A stream or consumer that vanished ends the messages: the loop makes them again.
      return consumer.consume({ max_messages: 256, abort_on_missing_resource: true });
    };
    // Adding a durable consumer with the same configuration again is a no-op: the step may repeat it.
    const first = await (this.opts.startUp?.step(`NATS JetStream consumer ${durable}`, subscribe) ?? subscribe());
    // A pack's events (event-pack.ts) each continue their own trace; the message is acknowledged once.
    const handle = async (m: JsMsg) => {
      try {
        const events = unpack(m.subject, m.data, m.headers?.get('traceparent') || undefined);
        await handleEach(events, subjects, ({ subject, event, traceparent }) => continueTrace(
          `${durable} process`, SpanKind.CONSUMER, traceparent, {
            'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.consumer.group.name': durable,
          }, () => handler(event, subject),
        ));
        m.ack();
      } catch (err) {
        const log = err instanceof UnreadablePack ? 'error' : 'warn';
        this.opts.logger[log]({ err: (err as Error).message, subject: m.subject }, 'event handler failed; redelivering');
        m.nak(REDELIVERY_DELAY_MS);
      }
    };
    const loop = new ConsumerLoop({
      durable, subscribe, handle, concurrency: Math.max(1, options.concurrency ?? 1), logger: this.opts.logger,
      onState: () => this.updateUsable(),
      onLost: () => this.checkStream(),
    });
    this.loops.add(loop);
    loop.start(first);
    return {
      stop: async () => {
        this.loops.delete(loop);
        await loop.stop();
        this.updateUsable();
      },
    };
  }

  async pending(durable: string): Promise<number> {
    const info = await this.jsm.consumers.info(this.opts.stream, durable);
    return info.num_pending + info.num_ack_pending;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}
