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

/** `payment.successful` travels on `<prefix>.payment.successful`. */
export function eventSubject(prefix: string, type: string): string {
  return `${prefix}.${type}`;
}

/**
 * The contract's event types. Shared because the gateway validates `event_type` against them and
 * the webhooks part refuses subscriptions to anything else when an endpoint is saved.
 */
export const EVENT_TYPES = [
  'payment.created', 'payment.processing', 'payment.authorized', 'payment.successful', 'payment.failed',
  'payment.cancelled', 'payment.refunded', 'refund.successful', 'refund.failed', 'payout.created',
  'payout.successful', 'payout.failed', 'settlement.created',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
