import {
  attemptSettledOf, internalSubjects, isInternalType, measuredBus, type ServiceDeps, type Subscription,
} from '../shared/index.js';
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
    if (!isInternalType(event?.type ?? '')) return;
    const settled = attemptSettledOf(event);
    if (!settled) {
      if (event.type === 'internal.attempt.settled') {
        deps.logger.error({ id: event?.id, type: event?.type }, 'routing-risk: unreadable attempt.settled dropped');
      }
      return;
    }
    await store.record(settled, deps.clock.now());
  }, { concurrency: IN_FLIGHT });
}
