import { create } from '@bufbuild/protobuf';
import { ScopeSchema, type Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { disputeJson, minorToJson } from '../../contract/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Queryable } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import { disputeFundsMovedObject, type DisputeFundsMoved } from '../../platform/internal-events.js';
import { commitChange, disputeEntryTitle, type PaymentRecord, type PaymentsStore, type TimelineEntry } from '../payments/index.js';
import type { ChangeSource, DisputeRecord, FundMovement, ProviderDisputeView } from './model.js';
import { CLOSED_STATUSES, decideView, movementOf, type Verdict } from './state-machine.js';
import type { DisputeStore } from './store.js';
import { disputeToProto } from './to-proto.js';

/**
 * A provider's view the dispute cannot take: no such payment in the scope, another provider's
 * payment, another currency, or more than the payment captured. A notification's receiver records
 * it as unmatched for the operator rather than dropping it.
 */
export class DisputeViewRefused extends Error {
  constructor(readonly code: 'payment_not_found' | 'provider_mismatch' | 'currency_mismatch' | 'amount_out_of_range', message: string) {
    super(message);
  }
}

export interface ApplyOptions {
  /** The caller's transaction; without it the apply is its own. */
  tx?: Queryable;
  /** Who caused it: the provider (default) or the merchant (accept, submit evidence, answered by the provider). */
  source?: ChangeSource;
  /** Fields of the merchant's action that change with the view (evidence submitted, the sandbox's decision time). */
  with?: Partial<Pick<DisputeRecord, 'evidence' | 'evidenceSubmittedAt' | 'decideAt'>>;
}

export interface Applied {
  dispute: DisputeRecord;
  verdict: Verdict;
  /** The money movements this apply recorded (none, or one). */
  movements: FundMovement[];
}

export interface ApplyDeps {
  store: PaymentsStore;
  disputes: DisputeStore;
  clock: Clock;
  relay: { kick(): void };
}

/** A new dispute from the provider's first view, on the payment's provider and attempt. */
function fresh(payment: PaymentRecord, view: ProviderDisputeView, at: Date): DisputeRecord {
  const attempt = [...payment.attempts].reverse().find((a) => a.providerCode === view.providerCode && a.status === 'succeeded')
    ?? [...payment.attempts].reverse().find((a) => a.providerCode === view.providerCode);
  return {
    id: newId('dp', at),
    paymentId: payment.id,
    attemptId: attempt?.id ?? null,
    merchantId: payment.merchantId,
    projectId: payment.projectId,
    mode: payment.mode,
    providerId: payment.providerId,
    providerCode: view.providerCode,
    providerName: payment.providerName,
    providerAccountId: payment.providerAccountId,
    providerDisputeId: view.providerDisputeId,
    amount: view.amount,
    currency: view.currency,
    feeAmount: view.feeAmount ?? 0n,
    reason: view.reason,
    providerReason: view.providerReason ?? null,
    stage: view.stage,
    status: view.status,
    evidenceDueBy: view.evidenceDueBy ?? null,
    fundsWithdrawn: false,
    movements: 0,
    providerEventAt: view.occurredAt,
    providerSequence: view.sequence ?? null,
    evidence: {},
    evidenceSubmittedAt: null,
    decideAt: null,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * Whether the payment can carry the view: the provider that took it, its currency, and at most what
 * was captured. Not captured minus refunded: a cardholder may dispute a partly refunded payment's
 * whole amount and the provider takes what it disputes (docs/disputes.md).
 */
function check(payment: PaymentRecord | undefined, view: ProviderDisputeView): asserts payment is PaymentRecord {
  if (!payment) throw new DisputeViewRefused('payment_not_found', `No payment ${view.paymentId} in this scope`);
  if (payment.providerCode !== view.providerCode) {
    throw new DisputeViewRefused('provider_mismatch', `Payment ${payment.id} was not taken by ${view.providerCode}`);
  }
  if (payment.currency !== view.currency) {
    throw new DisputeViewRefused('currency_mismatch', `Dispute in ${view.currency} of a payment in ${payment.currency}`);
  }
  if (view.amount <= 0n || view.amount > payment.capturedAmount) {
    throw new DisputeViewRefused('amount_out_of_range', `Dispute of ${view.amount} on a payment that captured ${payment.capturedAmount}`);
  }
}

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

/** The payment's timeline entry for a change of its dispute (its title and sentence: payments/timeline-descriptions.ts). */
function timelineEntry(before: DisputeRecord | undefined, d: DisputeRecord, movement: FundMovement | undefined): TimelineEntry {
  const type = !before ? 'dispute.opened' : disputeEventType(before, d) === 'dispute.closed' ? 'dispute.closed' : 'dispute.updated';
  const data = {
    dispute_id: d.id, reason: d.reason, stage: d.stage, status: d.status, amount: minorToJson(d.amount),
    funds_withdrawn: d.fundsWithdrawn, evidence_due_by: day(d.evidenceDueBy),
    ...(movement && { movement: movement.kind, moved_amount: minorToJson(movement.amount), fee_amount: minorToJson(movement.feeAmount) }),
  };
  return { type, title: disputeEntryTitle(type, data, d.currency), data };
}

function fundsMoved(d: DisputeRecord, m: FundMovement): DisputeFundsMoved {
  return {
    version: 1,
    id: m.id,
    dispute_id: d.id,
    payment_id: d.paymentId,
    kind: m.kind,
    amount: m.amount,
    fee_amount: m.feeAmount,
    currency: m.currency,
    reason: d.reason,
    stage: d.stage,
    provider_id: d.providerId,
    provider_code: d.providerCode,
    provider_name: d.providerName,
    provider_account_id: d.providerAccountId,
    provider_dispute_id: d.providerDisputeId,
    moved_at: m.createdAt.toISOString(),
  };
}

/** The public event a change emits: created for a new dispute, closed on entering a closed status, else updated. */
export function disputeEventType(before: DisputeRecord | undefined, d: DisputeRecord): string {
  if (!before) return 'dispute.created';
  return CLOSED_STATUSES.has(d.status) && before.status !== d.status ? 'dispute.closed' : 'dispute.updated';
}

export function createApply(deps: ApplyDeps) {
  const { store, disputes } = deps;

  /**
   * Writes a decided change of the dispute with everything it causes, in the caller's transaction
   * (which holds the payment's row lock): the row, one history row, the movement (its key refuses
   * a second one for the same step), the payment's timeline entry, the public event and the
   * internal dispute.funds_moved.
   */
  async function write(
    tx: Queryable, payment: PaymentRecord, before: DisputeRecord | undefined, next: DisputeRecord, source: ChangeSource,
    providerEventAt: Date | null, at: Date,
  ): Promise<FundMovement[]> {
    const kind = movementOf(before?.fundsWithdrawn ?? false, next.fundsWithdrawn);
    let movement: FundMovement | undefined;
    if (kind) {
      const withdrawn = kind === 'reinstatement' ? await disputes.lastWithdrawal(tx, next.id) : undefined;
      next.movements += 1;
      movement = {
        id: newId('dpm', at),
        disputeId: next.id,
        seq: next.movements,
        kind,
        amount: withdrawn?.amount ?? next.amount,
        feeAmount: kind === 'withdrawal' ? next.feeAmount : 0n,
        currency: next.currency,
        createdAt: at,
      };
    }
    next.updatedAt = at;
    await disputes.save(tx, next);
    if (movement) await disputes.insertMovement(tx, movement);
    await disputes.addHistory(tx, next, source, providerEventAt, at);
    const documents = await disputes.documents(scopeOf(next), next.id, tx);
    await commitChange(store, {
      payment,
      attempts: [],
      timeline: [timelineEntry(before, next, movement)],
      events: [{ type: disputeEventType(before, next), object: disputeJson(disputeToProto(next, documents)) }],
      internal: movement ? [disputeFundsMovedObject(fundsMoved(next, movement))] : [],
      at,
    }, { tx });
    return movement ? [movement] : [];
  }

  async function applyIn(tx: Queryable, scope: Scope, view: ProviderDisputeView, options: ApplyOptions): Promise<Applied> {
    const payment = await store.getForUpdate(tx, scope, view.paymentId);
    check(payment, view);
    const at = deps.clock.now();
    const current = await disputes.getByProviderForUpdate(tx, scope, view.providerCode, view.providerDisputeId);
    const decided = decideView(current, view, () => fresh(payment, view, at));
    if (decided.verdict === 'ignored') return { dispute: current!, verdict: 'ignored', movements: [] };
    const next = { ...decided.next, ...options.with };
    if (!current) {
      // The key is unique: should a view have made it meanwhile, this one is decided against that.
      if (!(await disputes.insertIfAbsent(tx, { ...next, fundsWithdrawn: false }))) return applyIn(tx, scope, view, options);
    }
    if (decided.verdict === 'confirmed' && !options.with) {
      if (next.providerEventAt.getTime() !== current!.providerEventAt.getTime()) await disputes.save(tx, next);
      return { dispute: next, verdict: 'confirmed', movements: [] };
    }
    const movements = await write(tx, payment, current, next, options.source ?? 'provider', view.occurredAt, at);
    return { dispute: next, verdict: decided.verdict === 'confirmed' ? 'applied' : decided.verdict, movements };
  }

  /**
   * Applies a provider's view of a dispute (docs/disputes.md): creates the dispute, or moves it as
   * the state machine allows, with its history, money movement and events in one transaction.
   * Idempotent: the same view again, or an older one, changes nothing (verdict confirmed/ignored).
   */
  async function applyProviderView(scope: Scope, view: ProviderDisputeView, options: ApplyOptions = {}): Promise<Applied> {
    if (options.tx) return applyIn(options.tx, scope, view, options);
    const applied = await store.transaction((tx) => applyIn(tx, scope, view, options));
    if (applied.verdict === 'created' || applied.verdict === 'applied') deps.relay.kick();
    return applied;
  }

  return { applyProviderView, write };
}

export function scopeOf(d: Pick<DisputeRecord, 'merchantId' | 'projectId' | 'mode'>): Scope {
  return create(ScopeSchema, { merchantId: d.merchantId, projectId: d.projectId, mode: d.mode });
}

export type ApplyProviderView = ReturnType<typeof createApply>['applyProviderView'];
