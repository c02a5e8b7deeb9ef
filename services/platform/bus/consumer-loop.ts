import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsumerMessages, JsMsg } from 'nats';
import type { Logger } from 'pino';

// One durable consumer's life in a process: subscribed, handling messages side by side up to a
// limit, and subscribed again whenever its messages stop (the stream or the consumer vanished, as
// when NATS came back without its store) or the bus asks (restart), until stop().

/** Pause between attempts to subscribe again while the stream or the consumer cannot be made. */
const RESUBSCRIBE_PAUSE_MS = 500;

export interface ConsumerLoopOptions {
  durable: string;
  /** Makes the durable consumer if it is missing and opens its messages. */
  subscribe(): Promise<ConsumerMessages>;
  handle(m: JsMsg): Promise<void>;
  concurrency: number;
  logger: Logger;
  /** Told when the loop can consume (true) and when it cannot (false). */
  onState(): void;
  /** Told when subscribing failed or the messages stopped: the bus checks its stream. */
  onLost(): Promise<void>;
}

export class ConsumerLoop {
  /** Subscribed, taking messages. */
  ok = false;
  private messages: ConsumerMessages | undefined;
  private stopped = false;
  private done: Promise<void> = Promise.resolve();

  constructor(private readonly opts: ConsumerLoopOptions) {}

  get durable(): string {
    return this.opts.durable;
  }

  /** Runs the loop on messages already subscribed (start-up's first subscription). */
  start(first: ConsumerMessages): void {
    this.done = this.run(first);
  }

  /** Ends the current subscription: the loop subscribes again (the consumer is made again if missing). */
  restart(): void {
    this.setOk(false);
    void this.messages?.close().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close().catch(() => undefined);
    await this.done;
  }

  private setOk(ok: boolean): void {
    if (this.ok === ok) return;
    this.ok = ok;
    this.opts.onState();
  }

  private async run(first: ConsumerMessages): Promise<void> {
    let messages: ConsumerMessages | undefined = first;
    while (!this.stopped) {
      if (!messages) {
        try {
          messages = await this.opts.subscribe();
        } catch (err) {
          this.setOk(false);
          this.opts.logger.warn({ consumer: this.opts.durable, err: (err as Error).message }, 'event consumer cannot subscribe; trying again');
          await this.opts.onLost().catch(() => undefined);
          await sleep(RESUBSCRIBE_PAUSE_MS);
          continue;
        }
        if (this.stopped) {
          await messages.close().catch(() => undefined);
          break;
        }
      }
      this.messages = messages;
      this.setOk(true);
      try {
        await this.drain(messages);
      } catch (err) {
        if (!this.stopped) {
          this.opts.logger.warn({ consumer: this.opts.durable, err: (err as Error).message }, 'event consumer lost its subscription; subscribing again');
        }
      }
      messages = undefined;
      if (this.stopped) break;
      this.setOk(false);
      await this.opts.onLost().catch(() => undefined);
    }
  }

  /** Handled side by side up to the limit: acks of a batch resolved together go out in one write. */
  private async drain(messages: ConsumerMessages): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    try {
      for await (const m of messages) {
        const handled: Promise<void> = this.opts.handle(m).finally(() => inFlight.delete(handled));
        inFlight.add(handled);
        if (inFlight.size >= this.opts.concurrency) await Promise.race(inFlight);
      }
    } finally {
      await Promise.all(inFlight);
    }
  }
}
