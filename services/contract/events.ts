import type { EventEnvelope } from './envelope.js';
import { EVENT_TYPES, isOneOf, type EventType } from './enums.js';
import type { DisputeJson, PaymentJson, PayoutJson, RefundJson, SettlementJson } from './resources.js';

// What each event type carries as data.object: the resource its name starts with, serialised by
// that resource's serialiser (payment.ts, refund.ts, payout.ts, settlement.ts, dispute.ts). The bus carries
// envelopes of any type; a consumer that reads the object takes this typed view of it.

/** The resource an event of type T carries. */
export type EventObject<T extends EventType> =
  T extends `payment.${string}` ? PaymentJson
  : T extends `refund.${string}` ? RefundJson
  : T extends `payout.${string}` ? PayoutJson
  : T extends `dispute.${string}` ? DisputeJson
  : SettlementJson;

/** An event of the contract, discriminated by its type. */
export type ContractEvent = {
  [T in EventType]: Omit<EventEnvelope, 'type' | 'data'> & { type: T; data: { object: EventObject<T> } };
}[EventType];

/**
 * The envelope as the contract's event it is, or undefined for a type the contract does not name.
 * The object is not checked field by field: every producer serialises it with the typed
 * serialisers, which the compiler holds to the resource's schema.
 */
export function contractEvent(event: EventEnvelope): ContractEvent | undefined {
  return isOneOf(EVENT_TYPES, event.type) ? (event as ContractEvent) : undefined;
}
