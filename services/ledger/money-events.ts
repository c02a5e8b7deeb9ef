import type { EventEnvelope } from '../contract/index.js';
import { isInternalType } from '../platform/internal-events.js';
import { movementFromInternalEvent } from './internal-movements.js';
import { movementFromLegacyPublicEvent } from './legacy-public-movements.js';
import type { Movement } from './movements.js';

/**
 * The movement an event records, by the ledger's two readers of the stream: internal events (the
 * way in) and, for one version, the public money events written before producers wrote internal
 * ones. Undefined for an event that moves no money or is not the ledger's.
 */
export function movementFromEvent(envelope: EventEnvelope): Movement | undefined {
  return isInternalType(envelope?.type ?? '') ? movementFromInternalEvent(envelope) : movementFromLegacyPublicEvent(envelope);
}
