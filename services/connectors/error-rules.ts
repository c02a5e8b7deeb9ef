// How a connector's error table says what a provider's answer means: the contract's failure
// category, our failure code and message, the attempt outcome the orchestrator acts on, and whether
// failover may try the next provider (derived from the outcome, so the two never disagree). Each
// connector keeps its own table of provider codes (stripe/errors.ts, adyen/errors.ts) built from these.
import type { AttemptOutcome, ConnectorFailure } from './types.js';

export interface ErrorRule extends ConnectorFailure {
  /** May the orchestrator try the next provider? Always agrees with `outcome` (tested per table). */
  failover: boolean;
  outcome: AttemptOutcome;
}

export function rule(category: ErrorRule['category'], code: string, message: string, outcome: AttemptOutcome): ErrorRule {
  const failover = outcome === 'soft_decline' || outcome === 'technical_error' || outcome === 'timeout'
    || outcome === 'provider_unavailable';
  return { category, code, message, outcome, failover };
}

// Declines another acquirer may well approve (the issuer gave no lasting reason), and refusals of
// this account that another provider does not share.
export const soft = (code: string, message: string) => rule('soft', code, message, 'soft_decline');
export const policy = (code: string, message: string) => rule('policy', code, message, 'soft_decline');
// Declines about the card or the customer: any provider would get the same answer, and trying
// again elsewhere looks like card testing to issuers.
export const hard = (code: string, message: string) => rule('hard', code, message, 'hard_decline');
// Nobody was charged and the provider, not the card, is the trouble.
export const technical = (code: string, message: string) => rule('technical', code, message, 'technical_error');
// The provider may have acted: no failover, the status query or reconciliation decides.
export const open = (code: string, message: string) => rule('technical', code, message, 'unknown');
