// What a provider's answer means, pure of I/O and storage: the attempt's outcome, status and
// failure (recordAnswer), what the payment does next (nextStep), and the failure a failed payment
// reports. transitions.ts turns these into payment changes; provider-call.ts makes the calls.
import { isDeclineOutcome, minorToJson } from '../../contract/index.js';
import type { RouteCandidate } from '../../../proto/gen/svc/routing/v1/routing_pb.js';
import type { AuthorizeResult, CardFacts } from '../../connectors/index.js';
import type { AttemptRecord, FailureJson, PaymentRecord, TimelineEntry } from './model.js';

export const FAILURE_BY_OUTCOME: Record<string, FailureJson> = {
  soft_decline: { code: 'soft_decline', category: 'soft', message: 'The provider declined the payment; it may succeed elsewhere.' },
  hard_decline: { code: 'hard_decline', category: 'hard', message: 'The provider declined the payment.' },
  technical_error: { code: 'provider_error', category: 'technical', message: 'The provider reported a technical error.' },
  timeout: { code: 'provider_timeout', category: 'technical', message: 'The provider did not answer in time.' },
  provider_unavailable: { code: 'provider_unavailable', category: 'technical', message: 'The provider was unavailable.' },
  unknown: { code: 'provider_unknown_outcome', category: 'technical', message: 'The provider outcome is unknown.' },
};

/** A decline always says why: the connector's reason, else generic_decline (the provider gave none we know). */
function withDeclineReason(outcome: string, failure: FailureJson): FailureJson {
  if (failure.declineReason || !isDeclineOutcome(outcome)) return failure;
  return { ...failure, declineReason: 'generic_decline' };
}

/** Outcomes after which the provider certainly charged nobody, so the next provider may be tried. */
const FAILOVER_OUTCOMES = new Set<string>(['soft_decline', 'technical_error', 'timeout', 'provider_unavailable']);

export type NextStep = 'succeed' | 'fail_over' | 'fail' | 'await_provider';

/**
 * What the payment does after an attempt. An outcome that is still open (unknown, or the
 * customer's turn) never fails over: the first provider may yet charge, and a second could
 * charge the customer again.
 */
export function nextStep(outcome: string, hasNextProvider: boolean): NextStep {
  if (outcome === 'success') return 'succeed';
  if (outcome === 'unknown' || outcome === 'requires_action') return 'await_provider';
  return FAILOVER_OUTCOMES.has(outcome) && hasNextProvider ? 'fail_over' : 'fail';
}

const CATEGORY_RANK: Record<string, number> = { hard: 3, soft: 2, technical: 1, policy: 0 };

/**
 * The failure a failed payment reports: a decline says more about the payment than a technical
 * fault elsewhere (the merchant should ask for another method, not retry), so the strongest
 * category wins and, within it, the latest attempt.
 */
export function paymentFailure(attempts: Pick<AttemptRecord, 'failure'>[]): FailureJson | null {
  let best: FailureJson | null = null;
  for (const a of attempts) {
    if (a.failure && (!best || CATEGORY_RANK[a.failure.category] >= CATEGORY_RANK[best.category])) best = a.failure;
  }
  return best;
}

/** The settled answer for one attempt, and how it was reached. */
export interface ProviderAnswer {
  result: AuthorizeResult;
  latencyMs: number;
  /** authorize gave no definite answer (deadline, time-out, error), so the provider was asked. */
  statusQuery?: { reason: string; found: boolean | null; outcome: string | null; error: string | null; latencyMs: number };
}

/**
 * The answer with the card facts of the payment's credential where the provider's answer told none
 * (the demo providers, most Stripe BINs): its outcome then counts in the segment it was planned in.
 */
export function withCard(answer: ProviderAnswer, card: CardFacts | undefined): ProviderAnswer {
  return answer.result.card || !card ? answer : { ...answer, result: { ...answer.result, card } };
}

/** Only a successful attempt costs a fee, whatever a connector reports. */
export function settled(r: AuthorizeResult): AuthorizeResult {
  return r.outcome === 'success' ? r : { ...r, fee: 0n };
}

export function newAttempt(payment: PaymentRecord, c: RouteCandidate, id: string, at: Date): AttemptRecord {
  return {
    id,
    attemptNumber: payment.attempts.length + 1,
    status: 'processing',
    outcome: null,
    providerId: c.providerId,
    providerCode: c.providerCode,
    providerName: c.providerName,
    providerAccountId: c.providerAccountId,
    providerPaymentId: null,
    providerResponseCode: null,
    providerMessage: null,
    failure: null,
    feeAmount: 0n,
    latencyMs: null,
    feeFixed: c.feeFixed,
    feeBps: c.feeBps,
    vault: c.vault ?? null,
    createdAt: at,
    updatedAt: at,
  };
}

const STATUS_BY_OUTCOME: Record<string, string> = { success: 'succeeded', unknown: 'unknown', requires_action: 'processing' };

export interface Recording {
  /** A success of a manual-capture payment only holds the funds: its attempt is `authorized`. */
  approvedAs?: 'succeeded' | 'authorized';
  /** Who asked the provider when it was not the request itself (reconciliation). */
  by?: string;
  /** The failure this answer means when it is not the outcome's own (the customer's decline or expiry). */
  failure?: FailureJson;
}

/** Writes the answer into the attempt and narrates it: time-out, status query, result. */
export function recordAnswer(
  attempt: AttemptRecord, answer: ProviderAnswer, at: Date, timeline: TimelineEntry[], how: Recording = {},
): void {
  const { result } = answer;
  const n = attempt.attemptNumber;
  if (answer.statusQuery) {
    const q = answer.statusQuery;
    timeline.push({
      type: 'attempt.timed_out',
      title: `Attempt ${n}: no answer from ${attempt.providerName ?? attempt.providerCode}`,
      attemptId: attempt.id,
      data: { reason: q.reason },
    });
    timeline.push({
      type: 'attempt.status_checked',
      title: q.found === null ? `Attempt ${n}: status query failed`
        : q.found ? `Attempt ${n}: provider reports ${q.outcome}` : `Attempt ${n}: provider never received the payment`,
      attemptId: attempt.id,
      data: {
        found: q.found, outcome: q.outcome, error: q.error, latency_ms: q.latencyMs, ...(how.by !== undefined && { by: how.by }),
      },
    });
  }
  attempt.outcome = result.outcome;
  attempt.status = result.outcome === 'success' ? how.approvedAs ?? 'succeeded' : STATUS_BY_OUTCOME[result.outcome] ?? 'failed';
  attempt.providerPaymentId = result.providerPaymentId;
  attempt.providerResponseCode = result.providerCode;
  attempt.providerMessage = result.providerMessage;
  attempt.failure = attempt.status === 'failed'
    ? withDeclineReason(result.outcome, how.failure ?? result.failure ?? FAILURE_BY_OUTCOME[result.outcome] ?? FAILURE_BY_OUTCOME.unknown)
    : null;
  attempt.feeAmount = result.fee;
  attempt.latencyMs = answer.latencyMs;
  if (result.card) attempt.card = result.card;
  attempt.updatedAt = at;
  timeline.push({
    type: `attempt.${attempt.status}`,
    title: `Attempt ${n}: ${result.outcome}`,
    attemptId: attempt.id,
    data: {
      outcome: result.outcome,
      provider_code: result.providerCode,
      ...(attempt.failure?.declineReason && { decline_reason: attempt.failure.declineReason }),
      fee_amount: minorToJson(result.fee),
      latency_ms: answer.latencyMs,
    },
  });
}
