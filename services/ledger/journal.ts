import type { TransactionType } from '../contract/enums.js';

/**
 * The ledger's chart of accounts and the postings each movement makes. Pure functions: the store
 * writes what they return, and journal.test.ts proves every posting balances.
 *
 * Accounts, per merchant, project, mode and currency (signed amounts: debit +, credit -):
 *  - provider_receivable  what providers owe the merchant for processed movements, not yet settled
 *                         (per provider account);
 *  - sales                gross of successful payments (credit) less successful refunds (debit);
 *  - adjustments          corrections a provider's settlement report made to gross amounts (a
 *                         payout returned by its bank is corrected in settled_funds and payouts);
 *  - disputes             disputed amounts providers withdrew (debit) less what they reinstated;
 *  - provider_fees        fees providers charged on payments, refunds, disputes and settlement batches;
 *  - settled_funds        what providers settled to the merchant, less what payouts took from it;
 *  - payouts, payout_fees what payouts sent to beneficiaries, and their providers' fees.
 */

export type Account =
  | 'provider_receivable' | 'sales' | 'adjustments' | 'disputes' | 'provider_fees' | 'settled_funds' | 'payouts'
  | 'payout_fees';

export interface JournalLine {
  account: Account;
  /** Debit positive, credit negative. */
  amount: bigint;
  providerAccountId: string | null;
}

/** A successful movement as the journal sees it: its type and signed figures. */
export interface Posting {
  type: TransactionType;
  /** Signed: negative for refunds, payouts and dispute withdrawals, 0 for fees. */
  amount: bigint;
  /** Positive when charged; a fee credited back is negative. */
  feeAmount: bigint;
  providerAccountId: string | null;
  /** What an adjustment corrects: a payout's (returned by its bank) or else a gross amount. */
  entityType?: string;
}

/** The lines of one movement; lines of 0 are left out. */
export function movementLines(p: Posting): JournalLine[] {
  const at = p.providerAccountId;
  const line = (account: Account, amount: bigint, providerAccountId: string | null = null): JournalLine =>
    ({ account, amount, providerAccountId });
  let lines: JournalLine[];
  switch (p.type) {
    case 'payment':
    case 'refund':
      // The provider owes the merchant the net; the gross is sales, the fee an expense. A refund is
      // the same with a negative gross: sales are debited back and the provider owes less.
      lines = [
        line('provider_receivable', p.amount - p.feeAmount, at),
        line('provider_fees', p.feeAmount),
        line('sales', -p.amount),
      ];
      break;
    case 'dispute':
    case 'dispute_reversal':
      // As a refund, but on disputes rather than sales: a withdrawal (amount -A, fee F) leaves the
      // provider owing A + F less, a reinstatement (+A) gives A back; the fee is an expense.
      lines = [
        line('provider_receivable', p.amount - p.feeAmount, at),
        line('provider_fees', p.feeAmount),
        line('disputes', -p.amount),
      ];
      break;
    case 'fee':
      lines = [line('provider_fees', p.feeAmount), line('provider_receivable', -p.feeAmount, at)];
      break;
    case 'adjustment':
      // A payout's bank returned it: what it took goes back to the settled funds, and is no longer sent.
      lines = p.entityType === 'payout'
        ? [line('settled_funds', p.amount), line('payouts', -p.amount)]
        : [line('provider_receivable', p.amount, at), line('adjustments', -p.amount)];
      break;
    case 'payout':
      // amount is negative: the beneficiary got -amount, the provider charged the fee, and both
      // came out of the funds providers had settled.
      lines = [
        line('payouts', -p.amount),
        line('payout_fees', p.feeAmount),
        line('settled_funds', p.amount - p.feeAmount),
      ];
      break;
  }
  return lines.filter((l) => l.amount !== 0n);
}

/** A settled batch: the provider paid out `net` of what it owed (negative when it collected). */
export function settlementLines(net: bigint, providerAccountId: string): JournalLine[] {
  if (net === 0n) return [];
  return [
    { account: 'settled_funds', amount: net, providerAccountId: null },
    { account: 'provider_receivable', amount: -net, providerAccountId },
  ];
}

export function isBalanced(lines: JournalLine[]): boolean {
  return lines.reduce((sum, l) => sum + l.amount, 0n) === 0n;
}
