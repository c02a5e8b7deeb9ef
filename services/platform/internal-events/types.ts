import type { EventEnvelope } from '../../contract/envelope.js';

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

/**
 * Builds an internal event of the given type for the producer: the same envelope as a public one,
 * so it goes through the same outbox statement (outboxRow) in the change's transaction.
 */
export function internalEnvelope<T extends object>(
  id: string, type: string, scope: { mode: string; merchantId: string; projectId: string }, at: Date, object: T,
): EventEnvelope {
  return {
    id, type, mode: scope.mode, merchant_id: scope.merchantId, project_id: scope.projectId, created_at: at.toISOString(),
    data: { object: object as unknown as Record<string, unknown> },
  };
}
