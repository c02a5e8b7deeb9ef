import type { EventEnvelope } from '../../contract/envelope.js';
import type { Minor } from '../../contract/money.js';
import {
  INTERNAL_EVENT_TYPES, internalObject, isText, readInternal, type InternalEvent, type InternalEventKind, type InternalObject,
} from './types.js';

/**
 * A provider's definite answer to one attempt (succeeded, authorized or failed): what routing
 * learns success rates from. `unknown` and `processing` are not settled; the attempt's later
 * answer (reconciliation, the customer) settles it, once.
 */
export interface AttemptSettled {
  version: 1;
  /** The attempt's id: one attempt settles once, so routing-risk counts each once by it. */
  id: string;
  payment_id: string;
  attempt_number: number;
  provider_id: string;
  provider_code: string;
  provider_account_id: string;
  payment_method: string;
  currency: string;
  country: string | null;
  /**
   * The card's network (Stripe's names: visa, mastercard, amex, ...) and BIN range (its first six
   * digits, never more) where the provider's answer told them; null otherwise (docs/decisions.md).
   */
  card_network: string | null;
  bin_range: string | null;
  /** succeeded | authorized | failed */
  status: string;
  /** The provider's outcome as the connector classified it (success, hard_decline, technical_error, …). */
  outcome: string;
  failure_category: string | null;
  failure_code: string | null;
  latency_ms: number | null;
  /** The payment's amount; null in an event written before the field was. */
  amount: Minor | null;
  settled_at: string;
}

export type AttemptSettledEvent = InternalEvent<AttemptSettled>;

const ATTEMPT_SETTLED: InternalEventKind<AttemptSettled> = {
  type: INTERNAL_EVENT_TYPES.attemptSettled, version: 1, amounts: { amount: 'null when absent' },
};

/** The producer's attempt.settled as the outbox writes it. */
export const attemptSettledObject = (object: AttemptSettled): InternalObject => internalObject(ATTEMPT_SETTLED, object);

const str = isText;

/** The event as an attempt.settled of a version this code reads, or undefined (malformed, unknown version). */
export function attemptSettledOf(event: EventEnvelope): AttemptSettledEvent | undefined {
  return readInternal(ATTEMPT_SETTLED, event, (o) => str(o.id) && str(o.payment_id) && str(o.provider_account_id)
    && str(o.payment_method) && str(o.currency) && str(o.status) && str(o.outcome)
    && str(event.merchant_id) && str(event.project_id) && str(event.mode));
}
