// A payment's webhook story, for its timeline (GET /v1/payments/{id}/timeline): one entry per
// attempt at delivering an event about the payment, told as it happened. This is the one home of
// the webhook entries' types, titles and descriptions; the gateway merges them, by time, with the
// payments part's entries, which that part narrates itself.
import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { TimelineEntrySchema, type TimelineEntry } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import type { PaymentAttemptRow } from './deliveries.js';

export type WebhookEntryType = 'webhook.delivered' | 'webhook.failed' | 'webhook.exhausted' | 'webhook.resent';

/** A resend is its own story whatever it did; an automatic attempt is told by what it left the delivery in. */
export function entryType(a: Pick<PaymentAttemptRow, 'manual' | 'outcome' | 'response_status'>): WebhookEntryType {
  if (a.manual) return 'webhook.resent';
  if (a.outcome === 'exhausted') return 'webhook.exhausted';
  if (a.outcome === 'failed') return 'webhook.failed';
  if (a.outcome === 'succeeded') return 'webhook.delivered';
  // Outcome unknown (recorded after its lease lapsed and before outcomes were kept): by its answer.
  return delivered(a) ? 'webhook.delivered' : 'webhook.failed';
}

const delivered = (a: Pick<PaymentAttemptRow, 'response_status'>) =>
  a.response_status !== null && a.response_status >= 200 && a.response_status < 300;

/** What the receiver did: "HTTP 500", or why no answer came ("timed out after 10000 ms"). */
function answer(a: PaymentAttemptRow): string {
  if (a.response_status !== null) return `HTTP ${a.response_status}`;
  return a.error ?? 'no answer';
}

/** "no answer" reads better as a reason than as a status in a title. */
function shortAnswer(a: PaymentAttemptRow): string {
  if (a.response_status !== null) return `HTTP ${a.response_status}`;
  if (a.error?.startsWith('timed out')) return 'time-out';
  if (a.error?.startsWith('address not allowed')) return 'address refused';
  return 'connection error';
}

const NARRATE: Record<WebhookEntryType, (a: PaymentAttemptRow) => { title: string; description: string }> = {
  'webhook.delivered': (a) => ({
    title: `Webhook ${a.event_type} delivered`,
    description: `Event ${a.event_id} (${a.event_type}) was delivered to ${a.url} on attempt ${a.attempt_number}: `
      + `the endpoint answered ${answer(a)} in ${a.duration_ms} ms.`,
  }),
  'webhook.failed': (a) => ({
    title: `Webhook ${a.event_type} failed: ${shortAnswer(a)}`,
    description: `Attempt ${a.attempt_number} to deliver event ${a.event_id} (${a.event_type}) to ${a.url} failed `
      + `(${answer(a)}, after ${a.duration_ms} ms); `
      + (a.next_attempt_at ? `the next attempt is due at ${a.next_attempt_at.toISOString()}.` : 'it will be retried.'),
  }),
  'webhook.exhausted': (a) => ({
    title: `Webhook ${a.event_type} exhausted: ${shortAnswer(a)}`,
    description: `Attempt ${a.attempt_number} to deliver event ${a.event_id} (${a.event_type}) to ${a.url} failed `
      + `(${answer(a)}, after ${a.duration_ms} ms). That was the last automatic attempt: no more retries are `
      + 'scheduled, and the delivery can be resent by hand.',
  }),
  'webhook.resent': (a) => delivered(a)
    ? {
      title: `Webhook ${a.event_type} resent: delivered`,
      description: `Event ${a.event_id} (${a.event_type}) was resent by hand to ${a.url} as attempt ${a.attempt_number}: `
        + `the endpoint answered ${answer(a)} in ${a.duration_ms} ms, so the delivery succeeded.`,
    }
    : {
      title: `Webhook ${a.event_type} resent: ${shortAnswer(a)}`,
      description: `Event ${a.event_id} (${a.event_type}) was resent by hand to ${a.url} as attempt ${a.attempt_number} `
        + `and failed (${answer(a)}, after ${a.duration_ms} ms); the delivery keeps its status and its retry schedule.`,
    },
};

export function timelineEntry(a: PaymentAttemptRow): TimelineEntry {
  const type = entryType(a);
  const finishedAt = new Date(a.started_at.getTime() + a.duration_ms);
  const data: JsonObject = {
    delivery_id: a.delivery_id, event_id: a.event_id, event_type: a.event_type, endpoint_id: a.endpoint_id, url: a.url,
    attempt: a.attempt_number, manual: a.manual, response_status: a.response_status, error: a.error,
    duration_ms: a.duration_ms, next_attempt_at: a.next_attempt_at?.toISOString() ?? null,
  };
  return create(TimelineEntrySchema, {
    id: a.id, type, ...NARRATE[type](a), data, createdAt: timestampFromDate(finishedAt),
  });
}
