import type { Payment } from '../api/types';

// Each provider's health over the home page's period, from every attempt of the period's payments,
// not only from the provider that took each payment: during an outage the failing provider is
// still tried first and fails over, which "By provider" (the provider that took each payment)
// never shows. Health is about the provider, not money, so it counts the payments of every currency.

/** Outcomes in which the provider answered about the payment itself: its approval rate reads these. */
const ANSWERED = new Set(['success', 'soft_decline', 'hard_decline']);
/** The provider, not the card, was the trouble: nobody was charged and the next provider may be tried. */
const TECHNICAL = new Set(['technical_error', 'timeout', 'provider_unavailable']);
/** At or above this share of its attempts failing technically, and this many failures, a provider is shown as failing. */
const FAILING_SHARE = 0.2;
const FAILING_AT_LEAST = 3;

export interface ProviderHealth {
  provider: string;
  attempts: number;
  /** Payments this provider was tried first for, and their share of the period's payments with an attempt. */
  firstAttempts: number;
  firstShare: number | null;
  /** Approved / answered (approved or declined): how the provider does when it answers. */
  answered: number;
  approvalRate: number | null;
  /** Attempts that failed for the provider's own trouble (technical error, time-out, unavailable). */
  technical: number;
  /** Attempts after which the payment moved on to another provider. */
  failoversAway: number;
  failing: boolean;
}

export function providerHealth(payments: Payment[]): ProviderHealth[] {
  const rows = new Map<string, ProviderHealth & { approved: number }>();
  let tried = 0;
  for (const p of payments) {
    const attempts = [...(p.attempts ?? [])].sort((a, b) => a.attempt_number - b.attempt_number);
    if (attempts.length > 0) tried += 1;
    attempts.forEach((a, i) => {
      const provider = a.provider_name ?? a.provider_id;
      const row = rows.get(provider) ?? {
        provider, attempts: 0, firstAttempts: 0, firstShare: null, answered: 0, approved: 0, approvalRate: null,
        technical: 0, failoversAway: 0, failing: false,
      };
      row.attempts += 1;
      if (i === 0) row.firstAttempts += 1;
      if (a.outcome && ANSWERED.has(a.outcome)) row.answered += 1;
      if (a.outcome === 'success') row.approved += 1;
      if (a.outcome && TECHNICAL.has(a.outcome)) row.technical += 1;
      const next = attempts[i + 1];
      if (next && (next.provider_name ?? next.provider_id) !== provider) row.failoversAway += 1;
      rows.set(provider, row);
    });
  }
  return [...rows.values()].map(({ approved, ...r }) => ({
    ...r,
    firstShare: tried === 0 ? null : r.firstAttempts / tried,
    approvalRate: r.answered === 0 ? null : approved / r.answered,
    failing: r.technical >= FAILING_AT_LEAST && r.technical / r.attempts >= FAILING_SHARE,
  })).sort((a, b) => b.attempts - a.attempts || a.provider.localeCompare(b.provider));
}
