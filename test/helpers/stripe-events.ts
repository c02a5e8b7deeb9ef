// Stripe webhook events as Stripe sends them (https://docs.stripe.com/webhooks): an Event object
// around the API object, posted as JSON with a `Stripe-Signature: t=…,v1=…` header, the HMAC-SHA256
// of `t.body` under the endpoint's signing secret, made here by the official SDK's
// generateTestHeaderString (the same scheme constructEvent verifies).
import Stripe from 'stripe';

let seq = 0;

export interface StripeDelivery {
  eventId: string;
  body: string;
  headers: Record<string, string>;
}

/** An Event of `type` carrying `object` (a PaymentIntent or Refund as the stand-in keeps it). */
export function stripeEvent(type: string, object: Record<string, unknown>): { id: string; json: string } {
  const id = `evt_standin${Date.now()}${String(++seq).padStart(4, '0')}`;
  const event = {
    id, object: 'event', api_version: '2025-01-27.acacia', created: Math.floor(Date.now() / 1000), livemode: true,
    pending_webhooks: 1, request: { id: null, idempotency_key: null }, type, data: { object: structuredClone(object) },
  };
  return { id, json: JSON.stringify(event, null, 2) };
}

/** The delivery of an event signed with `secret` at `timestamp` (seconds; default now). */
export function signed(event: { id: string; json: string }, secret: string, timestamp?: number): StripeDelivery {
  const header = Stripe.webhooks.generateTestHeaderString({ payload: event.json, secret, ...(timestamp && { timestamp }) });
  return {
    eventId: event.id,
    body: event.json,
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
  };
}

/** Posts a delivery to the gateway's provider webhook route, as Stripe would. */
export async function deliver(baseUrl: string, accountId: string, d: StripeDelivery, provider = 'stripe') {
  const res = await fetch(`${baseUrl}/providers/${provider}/webhooks/${accountId}`, { method: 'POST', headers: d.headers, body: d.body });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: an acknowledgement such as Adyen's "[accepted]".
  }
  return { status: res.status, body };
}
