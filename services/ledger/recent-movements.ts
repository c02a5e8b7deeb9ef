import type { Movement } from './movements.js';

/**
 * The movements this process recorded last, by what makes them one movement (scope, entity, kind,
 * movement id and outcome). While the legacy reader stays, each money change reaches the ledger twice (its
 * internal event and its public one, money-events.ts), and the second finds its movement taken.
 * A movement found here is a hint, never a decision: the event still goes through the one
 * statement that claims it and records at most one movement per entity and kind, only not on a
 * round trip of its own (consumer.ts). A process that restarted, or a second replica, simply has
 * no hint. Bounded: the twin of a change arrives within milliseconds of the first.
 */
export const REMEMBERED = 4096;

export function movementKey(m: Movement): string {
  const { merchantId, projectId, mode } = m.scope;
  return [merchantId, projectId, mode, m.entityType, m.entityId, m.type, m.movementId ?? '', m.status, m.reversesRefund].join('\u0000');
}

export function createRecentMovements(limit = REMEMBERED) {
  const keys = new Set<string>();
  return {
    has: (m: Movement) => keys.has(movementKey(m)),
    add(m: Movement): void {
      const key = movementKey(m);
      keys.delete(key);
      keys.add(key);
      // A Set iterates in insertion order: the first key is the one remembered longest.
      if (keys.size > limit) keys.delete(keys.values().next().value as string);
    },
  };
}
