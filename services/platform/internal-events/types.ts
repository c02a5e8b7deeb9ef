import type { EventEnvelope } from '../../contract/envelope.js';
import { minorFromJson, minorToJson, type Minor } from '../../contract/money.js';

/** Every internal event's type starts with this, so its subject is `<prefix>.internal.<name>`. */
export const INTERNAL_PREFIX = 'internal.';

/** The internal event types, one per fact; a new one is added here with its payload and reader. */
export const INTERNAL_EVENT_TYPES = {
  attemptSettled: 'internal.attempt.settled',
  paymentDecided: 'internal.payment.decided',
  refundSettled: 'internal.refund.settled',
  payoutSettled: 'internal.payout.settled',
  disputeFundsMoved: 'internal.dispute.funds_moved',
  lateChargeMoved: 'internal.late_charge.moved',
} as const;

/** An internal event as it travels: the contract's envelope around one typed object. */
export type InternalEvent<T> = Omit<EventEnvelope, 'data'> & { data: { object: T } };

export const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
export const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
export const isTextOrNull = (v: unknown): boolean => v === null || typeof v === 'string';
export const isCountOrNull = (v: unknown): boolean => v === null || isCount(v);

/** The envelope's own fields every reader checks: the scope an event is recorded under. */
export const scoped = (event: EventEnvelope): boolean =>
  isText(event.merchant_id) && isText(event.project_id) && isText(event.mode) && isText(event.id)
  && !Number.isNaN(Date.parse(event.created_at));

/** The fields of a payload that are amounts: Minor in code, JSON numbers on the wire. */
type AmountKey<T> = { [P in keyof T]-?: T[P] extends Minor | null ? P : never }[keyof T];

/** A payload as it travels: its amounts as JSON numbers, everything else as it is. */
export type Wire<T> = { [P in keyof T]: T[P] extends Minor ? number : T[P] extends Minor | null ? number | null : T[P] };

/**
 * One internal event: its type, the version this code writes and reads, and, once, which of its
 * payload's fields are amounts. `required` ones make an event unreadable when missing or not a whole
 * number; `null when absent` ones were added to a version already on the wire, so an event from an
 * older producer reads with null. The compiler holds the list to the payload's Minor fields.
 */
export interface InternalEventKind<T> {
  type: string;
  version: number;
  amounts: Record<AmountKey<T>, 'required' | 'null when absent'>;
}

/** What a producer hands to the outbox beside its change: the event's type and its payload as it travels. */
export interface InternalObject { type: string; object: Record<string, unknown> }

/** The payload a producer built, with its amounts written as JSON numbers (minorToJson throws beyond 2^53-1). */
export function internalObject<T extends object>(kind: InternalEventKind<T>, object: T): InternalObject {
  const wire: Record<string, unknown> = { ...(object as Record<string, unknown>) };
  for (const key of Object.keys(kind.amounts)) {
    const value = wire[key] as Minor | null;
    wire[key] = value === null ? null : minorToJson(value);
  }
  return { type: kind.type, object: wire };
}

/**
 * The event as `kind` of the version this code reads, its amounts as Minor, or undefined (another
 * type or version, a missing or fractional amount, or one `valid` refuses: `valid` sees the wire
 * payload with its amounts already checked to be whole numbers).
 */
export function readInternal<T extends object>(
  kind: InternalEventKind<T>, event: EventEnvelope, valid: (o: Wire<T>) => boolean,
): InternalEvent<T> | undefined {
  if (event?.type !== kind.type) return undefined;
  const o = event.data?.object as Record<string, unknown> | undefined;
  if (!o || o.version !== kind.version) return undefined;
  const object: Record<string, unknown> = { ...o };
  for (const [key, presence] of Object.entries(kind.amounts)) {
    if (isCount(o[key])) object[key] = minorFromJson(o[key]);
    else if (presence === 'null when absent') object[key] = null;
    else return undefined;
  }
  if (!valid(o as Wire<T>)) return undefined;
  return { ...event, data: { ...event.data, object: object as T } };
}

/**
 * Builds an internal event for the producer: the same envelope as a public one, so it goes through
 * the same outbox statement (outboxRow) in the change's transaction.
 */
export function internalEnvelope(
  id: string, scope: { mode: string; merchantId: string; projectId: string }, at: Date, { type, object }: InternalObject,
): EventEnvelope {
  return {
    id, type, mode: scope.mode, merchant_id: scope.merchantId, project_id: scope.projectId, created_at: at.toISOString(),
    data: { object },
  };
}
