import { DISPUTE_STAGES, type DisputeStage, type DisputeStatus } from '../../contract/enums.js';
import type { DisputeRecord, ProviderDisputeView } from './model.js';

/**
 * The dispute's state machine, written once (docs/disputes.md tells it as a table). A dispute only
 * moves forward: through the stages inquiry → chargeback → pre_arbitration (a new round may start
 * from any status of an earlier stage), and within a stage along NEXT below. A provider's view older
 * than the newest one applied (by its sequence, else its time) changes nothing at all.
 */

/** The statuses a dispute may move to within its stage. */
const NEXT: Record<DisputeStatus, readonly DisputeStatus[]> = {
  needs_response: ['under_review', 'won', 'lost', 'accepted', 'expired', 'cancelled'],
  under_review: ['won', 'lost', 'cancelled'],
  // The provider reversed its decision (Adyen's CHARGEBACK_REVERSED after a lost chargeback).
  lost: ['won'],
  expired: ['won'],
  won: [],
  accepted: [],
  cancelled: [],
};

/** Closed: the merchant can do nothing more at this stage (dispute.closed is emitted on entering one). */
export const CLOSED_STATUSES: ReadonlySet<DisputeStatus> = new Set(['won', 'lost', 'accepted', 'expired', 'cancelled']);

const stageRank = (s: DisputeStage) => DISPUTE_STAGES.indexOf(s);

/** Whether a dispute at `from` may move to `to` (same state: no move, false). */
export function mayMove(
  from: { stage: DisputeStage; status: DisputeStatus }, to: { stage: DisputeStage; status: DisputeStatus },
): boolean {
  if (stageRank(to.stage) !== stageRank(from.stage)) return stageRank(to.stage) > stageRank(from.stage);
  return NEXT[from.status].includes(to.status);
}

/** Whether the view is older than the newest one the dispute applied: its sequence decides where both have one. */
export function isOlder(view: Pick<ProviderDisputeView, 'occurredAt' | 'sequence'>, d: DisputeRecord): boolean {
  if (view.sequence != null && d.providerSequence != null) return view.sequence < d.providerSequence;
  return view.occurredAt.getTime() < d.providerEventAt.getTime();
}

/**
 * Whether the dispute's funds are withdrawn after the provider's view: as the provider says, except
 * that an inquiry never moves money, money comes back only with a won dispute (never on lost,
 * accepted or expired: the provider keeps it), and a won dispute is never withdrawn.
 */
export function fundsWithdrawnAfter(current: boolean, view: Pick<ProviderDisputeView, 'stage' | 'status' | 'fundsWithdrawn'>): boolean {
  if (view.stage === 'inquiry') return current;
  if (view.status === 'won') return false;
  return current || view.fundsWithdrawn;
}

/** Whether the merchant may take the action (stage evidence, submit, accept) in this status. */
export const merchantMayAct = (d: Pick<DisputeRecord, 'status'>): boolean => d.status === 'needs_response';

/** What a provider's view does to a dispute: creates it, moves it, agrees with it, or is ignored. */
export type Verdict = 'created' | 'applied' | 'confirmed' | 'ignored';

/**
 * Decides the view against the stored dispute (undefined: none yet) and returns the dispute as it
 * stands after it (a new object; the input is not changed) with the verdict. Pure; apply.ts writes it.
 */
export function decideView(
  d: DisputeRecord | undefined, view: ProviderDisputeView, fresh: () => DisputeRecord,
): { verdict: Verdict; next: DisputeRecord } {
  if (!d) {
    const created = fresh();
    return { verdict: 'created', next: { ...created, fundsWithdrawn: fundsWithdrawnAfter(false, view) } };
  }
  if (isOlder(view, d)) return { verdict: 'ignored', next: d };
  const moves = view.stage !== d.stage || view.status !== d.status;
  if (moves && !mayMove(d, view)) return { verdict: 'ignored', next: d };
  const next: DisputeRecord = {
    ...d,
    stage: view.stage,
    status: view.status,
    reason: view.reason,
    providerReason: view.providerReason ?? d.providerReason,
    amount: view.amount,
    feeAmount: view.feeAmount ?? d.feeAmount,
    evidenceDueBy: view.evidenceDueBy === undefined ? d.evidenceDueBy : view.evidenceDueBy,
    // After a reversal (won, reinstated) a second chargeback withdraws again; after a loss the money is still away.
    fundsWithdrawn: fundsWithdrawnAfter(d.fundsWithdrawn, view),
    providerEventAt: view.occurredAt.getTime() > d.providerEventAt.getTime() ? view.occurredAt : d.providerEventAt,
    providerSequence: view.sequence ?? d.providerSequence,
  };
  return { verdict: differs(d, next) ? 'applied' : 'confirmed', next };
}

/** Whether anything the merchant sees changed (not the bookkeeping of the newest view's time). */
function differs(a: DisputeRecord, b: DisputeRecord): boolean {
  return a.stage !== b.stage || a.status !== b.status || a.reason !== b.reason || a.providerReason !== b.providerReason
    || a.amount !== b.amount || a.feeAmount !== b.feeAmount || a.fundsWithdrawn !== b.fundsWithdrawn
    || a.evidenceDueBy?.getTime() !== b.evidenceDueBy?.getTime();
}

/** The movement a change of the funds flag makes: withdrawn now, reinstated now, or none. */
export function movementOf(before: boolean, after: boolean): 'withdrawal' | 'reinstatement' | undefined {
  if (before === after) return undefined;
  return after ? 'withdrawal' : 'reinstatement';
}
