/**
 * What travels on the bus: the contract's webhook envelope plus the scope that lets consumers
 * file the event under the right merchant, project and mode.
 */
export interface EventEnvelope {
  id: string;
  type: string;
  mode: string;
  merchant_id: string;
  project_id: string;
  created_at: string;
  data: { object: Record<string, unknown> };
}

/**
 * The aggregate an event belongs to: the relay keeps one aggregate's events in order and lets
 * another's pass an event it cannot publish. A refund's events belong to their payment, since a
 * refund changes the payment (`payment.refunded` and `refund.successful` must not swap); a
 * payout's to the payout, a settlement's to the settlement. The migrations that add the column
 * back-fill pending rows with this same rule written in SQL.
 */
export function aggregateIdOf(event: Pick<EventEnvelope, 'id' | 'type' | 'data'>): string {
  const object = event.data.object;
  const own = typeof object.id === 'string' ? object.id : event.id;
  if (event.type.startsWith('refund.') && typeof object.payment_id === 'string') return object.payment_id;
  // An internal event about a payment's part (an attempt) keeps that payment's order too.
  if (event.type.startsWith('internal.') && typeof object.payment_id === 'string') return object.payment_id;
  return own;
}

/** `payment.successful` travels on `<prefix>.payment.successful`. */
export function eventSubject(prefix: string, type: string): string {
  return `${prefix}.${type}`;
}
