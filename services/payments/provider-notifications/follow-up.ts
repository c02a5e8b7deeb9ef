import { every } from '../../platform/every.js';
import type { Logger } from '../../platform/logger.js';
import type { Receiver } from './receive.js';

// Every replica reads, every FOLLOW_UP_MS, the hinted payment ids whose posts waited out their
// window or their account's budget (fetch-gate.ts): so a real change posted while an id's fetch was
// coalesced, or while a flood spent the account's fetches, is still read within seconds. Replicas
// share the rows (FOR UPDATE SKIP LOCKED): each id is read once.

const FOLLOW_UP_MS = 500;
/** Ids taken per round; their fetches are bounded per account by the gate all the same. */
const AT_ONCE = 50;

export function createFollowUps(receiver: Pick<Receiver, 'followUp'>, logger: Logger) {
  const loop = every(FOLLOW_UP_MS, 'provider notification follow-up', logger, async () => {
    while ((await receiver.followUp(AT_ONCE)) === AT_ONCE) { /* the next batch at once */ }
  });
  return { start: () => loop.start(), stop: () => loop.stop() };
}
