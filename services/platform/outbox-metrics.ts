import type { Pool } from './db.js';
import type { PartName } from './config.js';
import type { CounterHandle, Metrics } from './metrics.js';

// A producing part's outbox as Prometheus sees it: read on scrape with one query over the
// unpublished rows (the partial indexes on published_at IS NULL keep it small), plus the relay's
// failed publish attempts as they happen.

const PARTS = ['payments', 'ledger', 'payouts', 'webhooks', 'routing-risk'];

export type RelayFailures = CounterHandle<'part' | 'outcome'>;

/** Counter of events the relay could not publish: `retry` (tried again later) or `parked`. */
export function relayFailures(metrics: Metrics): RelayFailures {
  return metrics.counter('svc_outbox_publish_failures_total', 'Outbox events the relay failed to publish, by what happens next', {
    part: PARTS, outcome: ['retry', 'parked'],
  });
}

interface OutboxReading { backlog: string; parked: string; age: number | null }

async function readOutbox(pool: Pool): Promise<OutboxReading> {
  const { rows } = await pool.query<OutboxReading>(
    `SELECT count(*) FILTER (WHERE parked_at IS NULL) AS backlog,
            count(*) FILTER (WHERE parked_at IS NOT NULL) AS parked,
            extract(epoch FROM now() - min(created_at) FILTER (WHERE parked_at IS NULL))::float8 AS age
       FROM outbox WHERE published_at IS NULL`,
  );
  return rows[0];
}

/** Backlog, parked events and the age of the oldest unpublished event of `part`'s outbox. */
export function watchOutbox(metrics: Metrics, part: PartName, pool: Pool): void {
  const backlog = metrics.gauge('svc_outbox_backlog_events', 'Outbox events not yet published (parked ones excluded)', { part: PARTS });
  const parked = metrics.gauge('svc_outbox_parked_events', 'Outbox events parked after failing to publish (svc dead-letter list)', { part: PARTS });
  const age = metrics.gauge('svc_outbox_oldest_unpublished_age_seconds', 'Age of the oldest unpublished, unparked outbox event (0 when none)', { part: PARTS });
  // One query per scrape serves the three gauges: the first to collect reads, the others reuse it.
  let reading: Promise<OutboxReading> | undefined;
  const read = () => {
    reading ??= readOutbox(pool).finally(() => setTimeout(() => { reading = undefined; }, 1000).unref());
    return reading;
  };
  backlog.onCollect(async (set) => set({ part }, Number((await read()).backlog)));
  parked.onCollect(async (set) => set({ part }, Number((await read()).parked)));
  age.onCollect(async (set) => set({ part }, (await read()).age ?? 0));
}
