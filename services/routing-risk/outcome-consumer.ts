import { createBatcher } from '../platform/batcher.js';
import { measuredBus, type Subscription } from '../platform/bus/index.js';
import {
  INTERNAL_EVENT_TYPES, attemptSettledOf, internalSubjects, type AttemptSettledEvent,
} from '../platform/internal-events.js';
import type { ServiceDeps } from '../platform/part.js';
import { createOutcomeStore, type OutcomeStore } from './outcome-store.js';

/** The durable consumer's name: every routing-risk replica shares it, so each event is recorded by one. */
export const OUTCOME_CONSUMER = 'routing-risk';

/**
 * Events handed to the handler at once: those that arrive while a batch is being written, or while a
 * lone event waits for company (ROUTING_OUTCOME_WAIT_MS), are recorded together by one statement and
 * acknowledged together once it has committed. A full hand is written without waiting.
 */
const IN_FLIGHT = 128;

/**
 * Consumes the internal subjects only (`<prefix>.internal.>`: a single filter, which NATS 2.9
 * takes) and records each attempt.settled once. An event of a shape or version this code does not
 * read is dropped, loudly, rather than redelivered forever; a database error redelivers it.
 */
export async function consumeAttemptOutcomes(deps: ServiceDeps): Promise<Subscription> {
  const record = createBatcher(
    recordIsolating(createOutcomeStore(deps.pool), () => deps.clock.now()), IN_FLIGHT, deps.config.routingOutcomeWaitMs,
  );
  const bus = measuredBus(deps.metrics, deps.bus);
  return bus.consume(OUTCOME_CONSUMER, [internalSubjects(deps.config.natsSubjectPrefix)], async (event) => {
    const settled = attemptSettledOf(event);
    if (!settled) {
      // Another internal type is not this consumer's; an attempt.settled it cannot read is dropped loudly.
      if (event?.type === INTERNAL_EVENT_TYPES.attemptSettled) {
        deps.logger.error({ id: event.id, version: event.data?.object?.version }, 'routing-risk: unreadable attempt.settled dropped');
      }
      return;
    }
    const outcome = await record(settled);
    if (outcome instanceof Error) throw outcome;
  }, { concurrency: IN_FLIGHT });
}

/**
 * One statement for the batch; if it fails, each event again on its own, so an event Postgres
 * refuses (a malformed time, say) is redelivered alone instead of taking its batch with it every time.
 */
function recordIsolating(store: OutcomeStore, now: () => Date) {
  return async (events: AttemptSettledEvent[]): Promise<Array<boolean | Error>> => {
    try {
      return await store.recordMany(events, now());
    } catch (err) {
      if (events.length === 1) return [err as Error];
      return Promise.all(events.map(async (e) => {
        try {
          return (await store.recordMany([e], now()))[0];
        } catch (one) {
          return one as Error;
        }
      }));
    }
  };
}
