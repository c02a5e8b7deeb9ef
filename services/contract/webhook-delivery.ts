// How a webhook delivery is signed and which headers it carries: the contract's promise to
// receivers, written once for the webhooks part's dispatcher and `svc listen`, which forwards what
// it signs exactly as a delivery is.
import { createHmac } from 'node:crypto';

export const WEBHOOK_USER_AGENT = 'svc-webhooks/1.0';

/** The contract's Svc-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** One delivery attempt as its headers name it. */
export interface DeliveryAttempt {
  id: string;
  eventId: string;
  eventType: string;
  attempt: number;
  body: string;
}

/** The contract's headers, in its order. */
export function deliveryHeaders(delivery: DeliveryAttempt, signature: string): Array<[string, string]> {
  return [
    ['content-type', 'application/json'],
    ['user-agent', WEBHOOK_USER_AGENT],
    ['svc-signature', signature],
    ['svc-event-id', delivery.eventId],
    ['svc-event-type', delivery.eventType],
    ['svc-delivery-id', delivery.id],
    ['svc-delivery-attempt', String(delivery.attempt)],
    ['content-length', String(Buffer.byteLength(delivery.body))],
  ];
}
