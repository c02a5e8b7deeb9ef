import {
  INTERNAL_EVENT_TYPES, attemptSettledOf, internalSubjects, measuredBus, type ServiceDeps, type Subscription,
} from '../platform/index.js';
import { createOutcomeStore } from './outcome-store.js';

/** The durable consumer's name: every routing-risk replica shares it, so each event is recorded by one. */
export const OUTCOME_CONSUMER = 'routing-risk';

/**
 * Events handed to the handler at once: each is one short statement, and attempts of different
 * payments are independent, so a slow one holds back none of the others.
 */
const IN_FLIGHT = 32;

/**
 * Consumes the internal subjects only (`<prefix>.internal.>`: a single filter, which NATS 2.9
 * takes) and records each attempt.settled once. An event of a shape or version this code does not
 * read is dropped, loudly, rather than redelivered forever; a database error redelivers it.
 */
export async function consumeAttemptOutcomes(deps: ServiceDeps): Promise<Subscription> {
  const store = createOutcomeStore(deps.pool);
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
    await store.record(settled, deps.clock.now());
  }, { concurrency: IN_FLIGHT });
}
