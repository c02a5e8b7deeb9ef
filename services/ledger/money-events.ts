import type { EventEnvelope } from '../contract/index.js';
import { isInternalType } from '../platform/index.js';
import { movementFromInternalEvent } from './internal-movements.js';
import { movementFromLegacyPublicEvent } from './legacy-public-movements.js';
import type { Movement } from './movements.js';

/**
 * The ledger's two readers of the stream, by kind of event: internal ones (the way in) and, for
 * one version, the public money events written before producers wrote internal ones.
 */
/** The movement an event records: undefined for an event that moves no money, or is not the ledger's. */
export function movementFromEvent(envelope: EventEnvelope): Movement | undefined {
  return isInternalType(envelope?.type ?? '') ? movementFromInternalEvent(envelope) : movementFromLegacyPublicEvent(envelope);
}
