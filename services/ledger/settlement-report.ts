// A provider's settlement report as the ledger ingests it (settlements.ts), whoever parsed it: the
// demo providers (demo-settlement.ts), a provider's API or an uploaded file; and the ledger
// transaction each kind of line settles.
import type { Scope } from './movements.js';
import type { SettlementStatus } from '../contract/enums.js';

export interface ReportItem {
  /**
   * refund_reversal: a failed refund's amount paid back, settling the ledger's reversal of that
   * refund; dispute / dispute_reversal: a dispute's withdrawal (with its fee) or reinstatement.
   */
  type: ReportItemType;
  /** Our id of the movement (providers are sent it as the reference), or the provider's own. */
  entityId?: string;
  providerReference?: string;
  /** Dispute items: the provider's id of the disputed payment, when the line names the payment only. */
  paymentReference?: string;
  /** Signed as in the ledger: negative for refunds and dispute withdrawals, positive for the rest. */
  amount: bigint;
  feeAmount: bigint;
}

export interface SettlementReport {
  scope: Scope;
  providerAccountId: string;
  providerName: string | null;
  settlementEntity: string | null;
  reference: string;
  currency: string;
  status: SettlementStatus;
  periodStart: Date;
  periodEnd: Date;
  settledAt: Date | null;
  items: ReportItem[];
  /** Fees on the batch as a whole (a settlement fee), not on one movement. */
  fees: Array<{ amount: bigint; description: string }>;
  grossAmount: bigint;
  feeAmount: bigint;
  netAmount: bigint;
}

/**
 * The ledger transaction each item type settles: a refund reversal is the `adjustment` whose entity is
 * the refund (movements.ts, reversal), never one a settlement derived; a dispute item is one of the
 * dispute's own movements (settlement-disputes.ts).
 */
export const MATCHES = {
  payment: { type: 'payment', entityType: 'payment', sign: 1n },
  refund: { type: 'refund', entityType: 'refund', sign: -1n },
  refund_reversal: { type: 'adjustment', entityType: 'refund', sign: 1n },
  dispute: { type: 'dispute', entityType: 'dispute', sign: -1n },
  dispute_reversal: { type: 'dispute_reversal', entityType: 'dispute', sign: 1n },
} as const;
export type ReportItemType = keyof typeof MATCHES;
export const isReportItemType = (t: string): t is ReportItemType => Object.hasOwn(MATCHES, t);
