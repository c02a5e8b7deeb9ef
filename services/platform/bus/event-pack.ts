import type { EventEnvelope } from '../../contract/envelope.js';
import type { BusMessage } from './types.js';

/**
 * A pack: consecutive events of one aggregate that the outbox relay claimed together, carried as
 * one bus message, so each consumer receives and acknowledges them once instead of once each (a
 * payment decided within its request: payment.created, its outcome and the internal events of
 * that outcome). Each event keeps its own subject and trace context inside; a consumer hands its
 * handler those of them its subjects match, in their order, and acknowledges the message when all
 * were handled (a throw redelivers the whole pack; consumers are idempotent by event id).
 *
 * The pack travels on `<prefix>.internal.pack`, which every consumer's filter takes (the public
 * consumers subscribe to `<prefix>.>`, the internal ones to `<prefix>.internal.>`). Its message id
 * names its first and last event, so a relay publishing the same rows again is deduplicated by the
 * broker. A pack of a version this code does not read is refused (thrown: logged and redelivered),
 * never acknowledged unread, so a consumer behind its producer holds the events until upgraded.
 * A consumer older than packs cannot tell: it acknowledges one unread, hence OUTBOX_PACK=false
 * while parts are upgraded one at a time from such a version.
 */
export const PACK_VERSION = 1;
const PACK_TYPE = 'internal.pack';

export interface PackedEvent {
  subject: string;
  event: EventEnvelope;
  traceparent?: string;
}

interface PackBody {
  pack: number;
  events: PackedEvent[];
}

function packSubject(prefix: string): string {
  return `${prefix}.${PACK_TYPE}`;
}

/** One message for the events, in their order; the first event's trace context is the message's own. */
export function packMessage(prefix: string, events: Array<PackedEvent & { msgId: string }>): BusMessage {
  const body: PackBody = {
    pack: PACK_VERSION,
    events: events.map(({ subject, event, traceparent }) => ({ subject, event, ...(traceparent ? { traceparent } : {}) })),
  };
  return {
    subject: packSubject(prefix),
    msgId: `pack:${events[0].msgId}:${events[events.length - 1].msgId}`,
    data: Buffer.from(JSON.stringify(body)),
    traceparent: events[0].traceparent,
  };
}

/** Refused here, so the message is delivered again rather than acknowledged unread. */
export class UnreadablePack extends Error {
  override readonly name = 'UnreadablePack';
}

/**
 * The events a message carries: a pack's, or the message itself as the one event on its subject.
 * Throws UnreadablePack for a pack of another version.
 */
export function unpack(subject: string, data: Uint8Array, traceparent: string | undefined): PackedEvent[] {
  const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as EventEnvelope | PackBody;
  if (!isPack(parsed)) return [{ subject, event: parsed, traceparent }];
  if (parsed.pack !== PACK_VERSION || !Array.isArray(parsed.events)) {
    throw new UnreadablePack(`event pack of version ${String(parsed.pack)} on ${subject}: this version reads version ${PACK_VERSION}`);
  }
  return parsed.events;
}

function isPack(parsed: unknown): parsed is PackBody {
  return typeof parsed === 'object' && parsed !== null && 'pack' in parsed;
}

/** Whether a NATS subject filter (`*` one token, `>` the rest) takes a subject. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

/**
 * Hands a message's events to `handle`, those the consumer's subjects take, one after another in
 * their order, as separate messages of one aggregate would have reached it: an event a consumer
 * records after an earlier one (a refund after its payment, payment.successful's webhook after
 * payment.created's) finds that one recorded. Resolves when all were handled; a throw stops there
 * and the whole message is delivered again (events already handled are repeats by their id).
 */
export async function handleEach(
  events: PackedEvent[], subjects: string[], handle: (e: PackedEvent) => Promise<void>,
): Promise<void> {
  for (const e of events) {
    if (subjects.some((s) => subjectMatches(s, e.subject))) await handle(e);
  }
}
