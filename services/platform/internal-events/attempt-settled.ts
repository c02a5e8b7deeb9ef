import type { EventEnvelope } from '../../contract/envelope.js';
import { INTERNAL_EVENT_TYPES, isText, type InternalEvent } from './types.js';

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
  amount: number;
  settled_at: string;
}

export type AttemptSettledEvent = InternalEvent<AttemptSettled>;

const str = isText;

/** The event as an attempt.settled of a version this code reads, or undefined (malformed, unknown version). */
export function attemptSettledOf(event: EventEnvelope): AttemptSettledEvent | undefined {
  if (event?.type !== INTERNAL_EVENT_TYPES.attemptSettled) return undefined;
  const o = event.data?.object as Partial<AttemptSettled> | undefined;
  if (!o || o.version !== 1) return undefined;
  const ok = str(o.id) && str(o.payment_id) && str(o.provider_account_id) && str(o.payment_method) && str(o.currency)
    && str(o.status) && str(o.outcome) && str(event.merchant_id) && str(event.project_id) && str(event.mode);
  return ok ? (event as unknown as AttemptSettledEvent) : undefined;
}
