import type { Logger } from 'pino';
import type { EventBus } from './bus/index.js';
import type { Pool, Queryable, Statement } from './db.js';
import { eventSubject, type EventEnvelope } from './events.js';

/**
 * Transactional outbox. A state change and its event are written in one transaction
 * (enqueueEvent with the transaction's client); the relay publishes rows with the event id as
 * the message id and marks them sent only after the bus acknowledged them.
 * Every producing part has an `outbox` table in its own schema (see its migrations).
 */
export function enqueueEventStatement(event: EventEnvelope): Statement {
  return {
    text: `INSERT INTO outbox (event_id, type, merchant_id, project_id, mode, payload, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    values: [event.id, event.type, event.merchant_id, event.project_id, event.mode, JSON.stringify(event), event.created_at],
  };
}

export async function enqueueEvent(db: Queryable, event: EventEnvelope): Promise<void> {
  const { text, values } = enqueueEventStatement(event);
  await db.query(text, values);
}

export interface OutboxRelayOptions {
  pool: Pool;
  bus: EventBus;
  logger: Logger;
  subjectPrefix: string;
  pollMs: number;
  batchSize?: number;
}

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(private readonly opts: OutboxRelayOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Publish now rather than at the next poll: called right after a commit that enqueued events. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.drain().finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        const now = this.again;
        this.again = false;
        this.schedule(now ? 0 : this.opts.pollMs);
      });
    }, ms);
  }

  /** Publishes every unsent row, a batch per transaction; returns when none is left or on error. */
  async drain(): Promise<void> {
    const batch = this.opts.batchSize ?? 200;
    try {
      while ((await this.publishBatch(batch)) === batch);
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message }, 'outbox relay: publish failed, will retry');
    }
  }

  private async publishBatch(limit: number): Promise<number> {
    const client = await this.opts.pool.connect();
    try {
      await client.query('BEGIN');
      // SKIP LOCKED lets several replicas relay side by side without publishing a row twice at once.
      const { rows } = await client.query(
        `SELECT event_id, type, payload FROM outbox WHERE published_at IS NULL
         ORDER BY created_at, event_id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      await Promise.all(
        rows.map((row) =>
          this.opts.bus.publish({
            subject: eventSubject(this.opts.subjectPrefix, row.type),
            msgId: row.event_id,
            data: Buffer.from(JSON.stringify(row.payload)),
          }),
        ),
      );
      if (rows.length > 0) {
        await client.query('UPDATE outbox SET published_at = now() WHERE event_id = ANY($1)', [
          rows.map((r) => r.event_id),
        ]);
      }
      await client.query('COMMIT');
      return rows.length;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
