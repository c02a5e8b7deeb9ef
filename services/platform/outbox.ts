import type { Logger } from 'pino';
import { UnpublishableMessage, packMessage, type EventBus, type InOrderOutcome } from './bus/index.js';
import type { PartName } from './config.js';
import type { Pool, Queryable } from './db.js';
import { aggregateIdOf, eventSubject, type EventEnvelope } from '../contract/envelope.js';
import { claimBatch, recordOutcomes, type ClaimedRow, type Published, type PublishFailure } from './outbox-claims.js';
import type { RelayFailures } from './outbox-metrics.js';
import { currentTraceparent } from './tracing.js';
import { row, writeRows, type RowWrite, type TableShape } from './row-writes.js';

/**
 * Transactional outbox. A state change and its event are written in one transaction
 * (enqueueEvent with the transaction's client); the relay publishes rows with the event id as
 * the message id and marks them sent only after the bus acknowledged them. Published rows stay
 * (published_at), so events a broker lost can be published again (svc outbox republish).
 * Every producing part has an `outbox` table in its own schema (see its migrations). The row keeps
 * the trace context of the request that wrote it (NULL while tracing is off): the relay sends it
 * as the message's `traceparent` header, beside the payload, never inside it.
 */
const OUTBOX: TableShape = {
  table: 'outbox',
  columns: [
    { name: 'event_id', type: 'text' }, { name: 'type', type: 'text' }, { name: 'merchant_id', type: 'text' },
    { name: 'project_id', type: 'text' }, { name: 'mode', type: 'text' }, { name: 'payload', type: 'jsonb' },
    { name: 'created_at', type: 'timestamptz' }, { name: 'aggregate_id', type: 'text' }, { name: 'traceparent', type: 'text' },
    { name: 'held_until', type: 'double precision', secondsAfterNow: true },
  ],
  key: ['event_id'],
  write: 'insert',
};

/**
 * The event's outbox row, for a statement that writes it with the change it tells of. `holdMs`
 * keeps it back that long by the database's clock unless a later event of its aggregate is written
 * meanwhile, so that the two go out together as one message (claimBatch, OutboxRelay.pack).
 */
export function outboxRow(event: EventEnvelope, holdMs = 0): RowWrite {
  return row(OUTBOX, [
    event.id, event.type, event.merchant_id, event.project_id, event.mode, JSON.stringify(event), event.created_at,
    aggregateIdOf(event), currentTraceparent() ?? null, holdMs > 0 ? holdMs / 1000 : null,
  ]);
}

export async function enqueueEvent(db: Queryable, event: EventEnvelope): Promise<void> {
  await writeRows(db, [outboxRow(event)]);
}

export interface OutboxRelayOptions {
  pool: Pool;
  bus: EventBus;
  logger: Logger;
  subjectPrefix: string;
  pollMs: number;
  /**
   * How long a kick (a commit that enqueued events) waits for others before its round
   * (OUTBOX_WAIT_MS; default 0): a trickle of payments shares one claim, publish and record.
   */
  kickWaitMs?: number;
  batchSize?: number;
  /** Failed attempts after which an event is parked (default 5: after about 15 s of retries). */
  maxAttempts?: number;
  /** Wait before an event's second attempt, doubled for each further one up to 5 min (default 1 s). */
  retryBaseMs?: number;
  /**
   * How long a claimed batch is this relay's (default 30 s): far longer than publishing a batch
   * takes, and how long the rows of a relay that died mid-batch wait for another replica.
   */
  leaseMs?: number;
  /**
   * Consecutive events of one aggregate claimed together go as one message (OUTBOX_PACK): their
   * consumers receive and acknowledge them once. Off, each event is a message of its own.
   */
  pack?: boolean;
}

const MAX_RETRY_DELAY_MS = 5 * 60_000;
// While the bus takes nothing at all, the relay itself waits longer between rounds, up to this.
const MAX_PAUSE_MS = 5_000;
const MAX_ERROR_LENGTH = 1000;
// An idle relay polls less often, up to this many poll intervals apart. The commit that enqueues
// rows kicks the relay, so a poll only finds retries come due, rows of a relay that died and rows
// written past a kick; at 250 ms the polls were most of an idle part's statements.
// A round that claims anything polls at pollMs again.
const IDLE_POLL_FACTOR = 4;
// A hold ends by the database's clock, which a process timer set after the commit trails by the
// commit's own duration; the margin covers that and small clock drift (a missed end waits a poll).
const WAKE_MARGIN_MS = 50;

interface BatchOutcome {
  claimed: number;
  /** Something was published or parked: another round may find more. */
  progressed: boolean;
  /** Nothing got through: the bus seems down. */
  unavailable?: Error;
}

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private pauseMs = 0;
  /** Rounds in a row that claimed nothing. */
  private idleRounds = 0;
  private failures?: { counter: RelayFailures; part: PartName };
  private wake?: { at: number; timer: NodeJS.Timeout };
  /** When the scheduled round starts (process clock: a timer of this process); undefined while one runs. */
  private dueAt?: number;

  constructor(private readonly opts: OutboxRelayOptions) {}

  /** Counts failed publish attempts as `part`'s (set by assemblePart, which knows the part). */
  countFailures(counter: RelayFailures, part: PartName): void {
    this.failures = { counter, part };
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Publish now rather than at the next poll: called right after a commit that enqueued events. */
  kick(): void {
    if (this.stopped || this.pauseMs > 0) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const wait = this.opts.kickWaitMs ?? 0;
    // A round already due within the wait (an earlier kick's) takes this commit's events too.
    if (wait > 0 && this.dueAt !== undefined && this.dueAt <= Date.now() + wait) return;
    this.schedule(wait);
  }

  /**
   * Publish in `ms` too: a row held that long (outboxRow's holdMs) goes then if nothing released it
   * sooner. One wake is kept, the latest asked for: any round before it publishes holds run out.
   */
  wakeAfter(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms + WAKE_MARGIN_MS;
    if (this.wake && this.wake.at >= at) return;
    clearTimeout(this.wake?.timer);
    const timer = setTimeout(() => {
      this.wake = undefined;
      this.kick();
    }, at - Date.now());
    timer.unref();
    this.wake = { at, timer };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.wake?.timer);
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.dueAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.dueAt = undefined;
      this.running = this.drain().finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        const now = this.again && this.pauseMs === 0;
        this.again = false;
        this.schedule(now ? 0 : Math.max(this.pauseMs, this.pollMs()));
      });
    }, ms);
  }

  /** pollMs after a round that found rows, doubling with each empty round up to IDLE_POLL_FACTOR times it. */
  private pollMs(): number {
    return this.opts.pollMs * Math.min(2 ** Math.max(0, this.idleRounds - 1), IDLE_POLL_FACTOR);
  }

  /**
   * Publishes every due row, a batch at a time; returns when none is left or the bus is down.
   * A round already in flight is awaited first: rows it leased are skipped by this one's claim,
   * so without waiting a caller could return while they are still being published.
   */
  async drain(): Promise<void> {
    await this.running;
    const limit = this.opts.batchSize ?? 200;
    try {
      let found = false;
      for (;;) {
        const { claimed, progressed, unavailable } = await this.publishBatch(limit);
        found ||= claimed > 0;
        if (unavailable) throw unavailable;
        if (claimed < limit || !progressed) break;
      }
      this.pauseMs = 0;
      this.idleRounds = found ? 0 : Math.min(this.idleRounds + 1, 8);
    } catch (err) {
      this.pauseMs = Math.min(Math.max(this.opts.pollMs, this.pauseMs * 2), MAX_PAUSE_MS);
      this.opts.logger.warn({ err: (err as Error).message }, 'outbox relay: publish failed, will retry');
    }
  }

  // Claim and record are a statement each: no transaction is open while the bus is awaited.
  private async publishBatch(limit: number): Promise<BatchOutcome> {
    const rows = await claimBatch(this.opts.pool, limit, this.opts.leaseMs ?? 30_000);
    const { published, failed } = await this.publishInOrder(rows);
    const { failures, unavailable } = this.judge(failed, published.length > 0);
    // Rows after a failure in their chain were not attempted; those not blamed go back at once.
    const settled = new Set([...published.map((p) => p.eventId), ...failures.map((f) => f.eventId)]);
    const released = rows.map((r) => r.event_id).filter((id) => !settled.has(id));
    await recordOutcomes(this.opts.pool, { published, failures, released });
    return { claimed: rows.length, progressed: settled.size > 0, unavailable };
  }

  /**
   * Each aggregate's rows in order, so a later event never overtakes an earlier one that failed;
   * different aggregates side by side. A bus that can (publishInOrder) sends a chain's rows in one
   * round and has them acknowledged together; otherwise each publish awaits its ack.
   */
  private async publishInOrder(rows: ClaimedRow[]) {
    const chains = new Map<string, ClaimedRow[]>();
    for (const row of rows) {
      const chain = chains.get(row.aggregate_id);
      if (chain) chain.push(row);
      else chains.set(row.aggregate_id, [row]);
    }
    const published: Published[] = [];
    const failed: Array<{ row: ClaimedRow; err: unknown }> = [];
    await Promise.all([...chains.values()].map(async (chain) => {
      const outcomes = await this.publishChain(chain);
      // As when each publish awaited its ack: only a chain's first failure is blamed, the rows
      // after it go back unblamed.
      const first = outcomes.findIndex((o) => !o.ok);
      outcomes.forEach((outcome, i) => {
        if (outcome.ok) {
          published.push({ eventId: chain[i].event_id, streamCreated: outcome.receipt?.streamCreated, streamSeq: outcome.receipt?.seq });
        }
        else if (i === first && !('notSent' in outcome)) failed.push({ row: chain[i], err: outcome.err });
      });
    }));
    return { published, failed };
  }

  private async publishChain(chain: ClaimedRow[]): Promise<InOrderOutcome[]> {
    if (chain.length > 1 && this.opts.pack) {
      const packed = await this.publishPack(chain);
      if (packed) return packed;
    }
    const messages = chain.map((row) => ({
      subject: eventSubject(this.opts.subjectPrefix, row.type),
      msgId: row.event_id,
      data: Buffer.from(JSON.stringify(row.payload)),
      traceparent: row.traceparent ?? undefined,
    }));
    if (chain.length > 1 && this.opts.bus.publishInOrder) return this.opts.bus.publishInOrder(messages);
    const outcomes: InOrderOutcome[] = [];
    for (const message of messages) {
      if (outcomes.some((o) => !o.ok)) {
        outcomes.push({ ok: false, notSent: true });
        continue;
      }
      try {
        outcomes.push({ ok: true, receipt: (await this.opts.bus.publish(message)) ?? undefined });
      } catch (err) {
        outcomes.push({ ok: false, err });
      }
    }
    return outcomes;
  }

  /**
   * The chain as one message (bus/event-pack.ts): acknowledged, all its rows are; refused, the
   * first row carries the failure and the rest go back unblamed, as when sent one by one. A pack
   * too large for the bus is not blamed on anyone: undefined, and its rows are sent one by one.
   */
  private async publishPack(chain: ClaimedRow[]): Promise<InOrderOutcome[] | undefined> {
    const message = packMessage(this.opts.subjectPrefix, chain.map((row) => ({
      subject: eventSubject(this.opts.subjectPrefix, row.type),
      msgId: row.event_id,
      event: row.payload as EventEnvelope,
      traceparent: row.traceparent ?? undefined,
    })));
    try {
      const receipt = (await this.opts.bus.publish(message)) ?? undefined;
      return chain.map(() => ({ ok: true, receipt }));
    } catch (err) {
      if (err instanceof UnpublishableMessage) return undefined;
      return chain.map((_, i) => (i === 0 ? { ok: false, err } : { ok: false, notSent: true }));
    }
  }

  /**
   * Whom a failure is blamed on. An event the bus can never take is parked at once. Otherwise, if
   * another event of the batch got through, the bus works and the attempt counts against the
   * event; if nothing got through, the bus is down and no event is blamed (the relay pauses).
   */
  private judge(failed: Array<{ row: ClaimedRow; err: unknown }>, busWorks: boolean) {
    const maxAttempts = this.opts.maxAttempts ?? 5;
    const base = this.opts.retryBaseMs ?? 1000;
    const failures: PublishFailure[] = [];
    let unavailable: Error | undefined;
    for (const { row, err } of failed) {
      const permanent = err instanceof UnpublishableMessage;
      if (!permanent && !busWorks) {
        unavailable ??= err as Error;
        continue;
      }
      const attempts = row.attempts + 1;
      const park = permanent || attempts >= maxAttempts;
      const error = String((err as Error)?.message ?? err).slice(0, MAX_ERROR_LENGTH);
      failures.push({ eventId: row.event_id, error, park, delayMs: Math.min(base * 2 ** (attempts - 1), MAX_RETRY_DELAY_MS) });
      const where = { event_id: row.event_id, type: row.type, aggregate_id: row.aggregate_id, attempts, err: error };
      this.failures?.counter.inc({ part: this.failures.part, outcome: park ? 'parked' : 'retry' });
      if (park) this.opts.logger.error(where, 'outbox relay: event parked (svc dead-letter list); later events of its aggregate wait behind it');
      else this.opts.logger.warn(where, 'outbox relay: event not published, will retry it');
    }
    return { failures, unavailable };
  }
}
