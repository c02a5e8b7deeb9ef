// How a row of a connector's error table becomes the connector interface's answer, the same for
// every provider: the row decides the outcome and our failure, the provider's own code and message
// stay on the attempt for the merchant's support. Each provider's outcomes file (stripe/outcomes.ts,
// adyen/outcomes.ts) reads its answers into rows; this is what happens to a row after that. And a
// status query answered by repeating the attempt, which the providers' idempotency keys allow, or
// by looking the attempt up by our reference.
import type { ErrorRule } from './error-rules.js';
import type { AuthorizeResult, CredentialCheck, HoldResult, PaymentStatusResult } from './types.js';

/** What the provider itself said about the attempt, kept beside our failure. */
export interface ProviderAnswer {
  id?: string | null;
  code?: string | null;
  message?: string | null;
}

/** A failed attempt as its table rule says, with the provider's own code and message for the attempt. */
export function failed(rule: ErrorRule, provider: ProviderAnswer = {}): AuthorizeResult {
  return {
    outcome: rule.outcome,
    providerPaymentId: provider.id ?? null,
    providerCode: provider.code ?? null,
    providerMessage: provider.message ?? rule.message,
    fee: 0n,
    failure: {
      category: rule.category, code: rule.code, message: rule.message, ...(rule.declineReason && { declineReason: rule.declineReason }),
    },
  };
}

/**
 * The outcome of a money-moving call on an existing payment (capture, cancel, refund) that the
 * provider refused, by the same table. The provider refusing the request itself answers the same
 * however often it is sent, so it is a decline of the operation, not a fault; the provider's own
 * trouble is a technical error or unavailability. Undefined for an open rule (no answer, 5xx, key in
 * use): the provider may have acted, so the caller rethrows and the operation stays pending, to be
 * repeated with the same idempotency key.
 */
export function refusalOutcome(rule: ErrorRule): HoldResult['outcome'] | undefined {
  if (rule.outcome === 'unknown' || rule.outcome === 'timeout') return undefined;
  const troubled = rule.category === 'technical' && rule.code !== 'provider_rejected_request';
  if (!troubled) return 'hard_decline';
  return rule.outcome === 'provider_unavailable' ? 'provider_unavailable' : 'technical_error';
}

/**
 * The status of an attempt asked by sending it again under its idempotency key: the provider answers
 * the first request's outcome. No answer this time is a failed status query, thrown, so the attempt
 * stays unknown and is asked again later.
 */
export function statusFromRepeat(result: AuthorizeResult, provider: string): PaymentStatusResult {
  if (result.outcome === 'timeout') throw new Error(result.providerMessage ?? `${provider} did not answer`);
  return { found: true, ...result };
}

/**
 * An answer a connector cannot read: empty, truncated, not JSON, or JSON without the fields that
 * decide (the object's id, a status the connector knows). It decides nothing: thrown, so the caller
 * treats the operation's outcome as unknown and asks the provider (the status query of a payment,
 * the same refund, capture or release under its idempotency key, a payout's status) before deciding.
 * The connectors' `refusal` rethrows it as it rethrows every error that is not the provider's.
 */
export class UnreadableAnswer extends Error {
  constructor(provider: string, operation: string, why: string) {
    super(`${provider}'s answer to the ${operation} could not be read (${why}); the outcome is asked again`);
    this.name = 'UnreadableAnswer';
  }
}

const fieldOf = (answer: unknown, field: string): unknown =>
  (answer !== null && typeof answer === 'object' ? (answer as Record<string, unknown>)[field] : undefined);

/** The answer's `field` (the provider's id of what it made), or UnreadableAnswer when it has none. */
export function answerId(provider: string, operation: string, answer: unknown, field = 'id'): string {
  const id = fieldOf(answer, field);
  if (typeof id !== 'string' || !id) throw new UnreadableAnswer(provider, operation, `no ${field}`);
  return id;
}

/** The answer's status when it is one the connector knows, else UnreadableAnswer: an unknown status decides nothing. */
export function answerStatus<S extends string>(
  provider: string, operation: string, answer: unknown, known: readonly S[], field = 'status',
): S {
  const status = fieldOf(answer, field);
  if (typeof status !== 'string' || !(known as readonly string[]).includes(status)) {
    throw new UnreadableAnswer(provider, operation, status === undefined ? `no ${field}` : `unknown ${field} ${JSON.stringify(status)}`);
  }
  return status as S;
}

/** A provider's error as its table reads it: the row, and the provider's own code and message. */
export interface DescribedError {
  rule: ErrorRule;
  code: string;
  message: string;
}

/**
 * The status of an attempt looked up by our reference (a provider's payment list): the payment
 * `lookup` finds, as `read` makes it an attempt's result, or undefined when it is not listed. An
 * error of the provider's (`isProviderError`, read by `describe`) is the attempt's failure, except
 * no answer or an open row: the status query failed, thrown, so the attempt stays unknown and is
 * asked again later. Any other error is a bug, rethrown.
 */
export async function statusFromLookup<P, E>(
  lookup: () => Promise<P | undefined>,
  read: (payment: P) => AuthorizeResult,
  isProviderError: (err: unknown) => err is E,
  describe: (err: E) => DescribedError,
): Promise<PaymentStatusResult | undefined> {
  let payment: P | undefined;
  try {
    payment = await lookup();
  } catch (err) {
    if (!isProviderError(err)) throw err;
    const { rule, code, message } = describe(err);
    if (rule.outcome === 'timeout' || rule.outcome === 'unknown') throw new Error(message);
    return { found: true, ...failed(rule, { code, message }) };
  }
  return payment ? { found: true, ...read(payment) } : undefined;
}

/**
 * A credential check by a harmless call that only valid credentials get answered: any answer is
 * success; an error of the provider's is the check's refusal with the provider's code and message.
 * Any other error is a bug, rethrown.
 */
export async function credentialCheck<E>(
  call: () => Promise<unknown>,
  isProviderError: (err: unknown) => err is E,
  describe: (err: E) => DescribedError,
): Promise<CredentialCheck> {
  try {
    await call();
    return { ok: true };
  } catch (err) {
    if (!isProviderError(err)) throw err;
    const { code, message } = describe(err);
    return { ok: false, providerCode: code, message };
  }
}
