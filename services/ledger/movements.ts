/**
 * What a money event means to the ledger: the movement it records (money-events.ts picks the
 * reader), as the store writes it. The ledger records from the internal events
 * (internal-movements.ts: payment.decided, refund.settled, payout.settled, dispute.funds_moved);
 * for one version it still reads the public payment.*, refund.* and payout.* envelopes that were in the stream
 * before producers wrote internal ones (legacy-public-movements.ts, docs/decisions.md says when
 * it goes). A producer of this version writes both for one change; the transactions' uniqueness
 * per entity and kind records the first to arrive and makes the other a no-op. A refund the
 * provider had accepted and that failed afterwards reverses that refund's successful movement
 * with an adjustment of its amount (reversal); a payout failed after it was recorded as
 * successful (its bank returned it) likewise becomes a reversal, which the store decides. A
 * dispute's money is one movement per provider move (withdrawal, reinstatement), each once by its
 * movement id; a late charge and its return are a payment and a refund beside the payment's own, by theirs.
 */

import type { TransactionType } from '../contract/enums.js';
import type { Minor } from '../contract/money.js';

export interface Scope {
  merchantId: string;
  projectId: string;
  mode: string;
}

/** One row of the transactions table, as the store reads it. */
export interface TransactionRecord {
  id: string;
  scope: Scope;
  type: TransactionType;
  status: 'pending' | 'successful' | 'failed';
  entityType: string;
  entityId: string;
  paymentId: string | null;
  /** Signed: negative for refunds, payouts and dispute withdrawals. */
  amount: Minor;
  currency: string;
  feeAmount: Minor;
  /** What moved for the merchant: amount - feeAmount, 0 when failed (derived by the schema, migration 0004). */
  netAmount: Minor;
  providerName: string | null;
  providerAccountId: string | null;
  providerReference: string | null;
  paymentMethod: string | null;
  country: string | null;
  processingTimeMs: number | null;
  failureCode: string | null;
  settlementId: string | null;
  occurredAt: Date;
}

/** The transaction an event records, before it has an id or a settlement. */
export interface Movement extends Omit<TransactionRecord, 'id' | 'settlementId' | 'type' | 'status' | 'entityType' | 'netAmount'> {
  type: Exclude<TransactionType, 'fee'>;
  status: 'successful' | 'failed';
  entityType: 'payment' | 'refund' | 'payout' | 'dispute';
  /**
   * The producer's once-only key of a movement that may happen more than once on its entity (a
   * dispute withdrawn, reinstated and withdrawn again: `dpm_…`); absent for kinds that happen once
   * per entity. Part of the transactions' uniqueness (migration 0007).
   */
  movementId?: string;
  /**
   * A refund or a dispute's movement names its payment only: provider, account, method and country
   * come from the payment's transaction, and it waits for that transaction.
   */
  inheritsFromPayment: boolean;
  /** A refund's reversal waits for that refund's successful transaction, which it cancels out. */
  reversesRefund: boolean;
}

/**
 * A movement undone after it happened, as an `adjustment` of the opposite amount on the same
 * entity, with the failure that says why. A refund the provider accepted and failed afterwards
 * (failedAfterAcceptance), or a payout recorded as successful whose payout.failed came afterwards
 * (Stripe: the bank returned the money; the ledger's store decides, since the payout's JSON looks
 * the same either way). The entity's own transaction keeps what happened first (it may already be in
 * a settlement, whose items must keep adding up), and a charged fee stays charged. One per entity,
 * like every kind (the transactions' uniqueness per entity and type).
 */
export function reversal(failed: Movement): Movement {
  return { ...failed, type: 'adjustment', status: 'successful', amount: -failed.amount, feeAmount: 0n };
}
