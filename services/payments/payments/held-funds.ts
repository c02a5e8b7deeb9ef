// Capturing or releasing an authorization at the provider that holds the funds, before the
// payment's state changes here: a payment is never marked captured (or cancelled) unless the
// provider said so. Connectors without holds (the demo providers) are not called.
import { withDeadline } from '../../platform/deadline.js';
import { serviceError } from '../../contract/index.js';
import type { ConnectorRegistry, HoldRequest, HoldResult } from '../../connectors/index.js';
import type { AttemptRecord, PaymentRecord } from './model.js';

export type HoldOperation = 'capture' | 'cancel';

export interface HeldFundsDeps {
  connectors: ConnectorRegistry;
  /** Deadline of each provider call. */
  providerTimeoutMs: number;
}

/**
 * The provider's idempotency key for an operation on an attempt's authorization. One capture and
 * one release per authorization, so it is derived, not stored: a repeated request (the merchant's
 * retry, or ours after a lost answer) reaches the provider as the same operation and is answered
 * from its idempotency store instead of acting twice.
 */
export function holdOperationId(attempt: AttemptRecord, op: HoldOperation): string {
  return `${attempt.id}_${op}`;
}

const VERB: Record<HoldOperation, string> = { capture: 'capture', cancel: 'release the authorization of' };

/**
 * Asks the attempt's provider to capture `amount` or release the hold. Returns when the provider
 * said success (or holds nothing this connector manages); otherwise throws: provider_declined
 * (409) when the provider refused, provider_unavailable (503) when it could not be asked or gave
 * no answer. A lost answer is asked once more at once with the same operation id; after that the
 * merchant's retry does the same, safely.
 */
export async function atProvider(
  deps: HeldFundsDeps, payment: PaymentRecord, attempt: AttemptRecord | undefined, op: HoldOperation, amount: bigint,
): Promise<void> {
  if (!attempt?.providerPaymentId) return;
  const connector = deps.connectors.forProvider(attempt.providerCode);
  const call = connector?.[op]?.bind(connector);
  if (!call) return;
  const req: Omit<HoldRequest, 'signal'> = {
    account: { providerCode: attempt.providerCode, id: attempt.providerAccountId },
    paymentId: payment.id,
    operationId: holdOperationId(attempt, op),
    providerPaymentId: attempt.providerPaymentId,
    amount,
    currency: payment.currency,
  };
  const provider = attempt.providerName ?? attempt.providerCode;
  let result: HoldResult | undefined;
  let trouble = 'no answer in time';
  for (let tries = 0; tries < 2 && !result; tries++) {
    try {
      result = await withDeadline(deps.providerTimeoutMs, (signal) => call({ ...req, signal }));
    } catch (err) {
      trouble = (err as Error).message;
    }
  }
  if (result?.outcome === 'success') return;
  if (result?.outcome === 'hard_decline') {
    const said = [result.providerCode, result.providerMessage].filter(Boolean).join(': ');
    throw serviceError('provider_declined', `${provider} refused to ${VERB[op]} payment ${payment.id}${said ? ` (${said})` : ''}; nothing changed.`);
  }
  const why = result ? [result.providerCode, result.providerMessage].filter(Boolean).join(': ') || result.outcome : trouble;
  throw serviceError(
    'provider_unavailable',
    `${provider} could not ${VERB[op]} payment ${payment.id} (${why}); nothing changed here. Retry the request: the provider sees the same operation and never acts twice.`,
  );
}
