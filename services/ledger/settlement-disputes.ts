import { invalidField } from '../contract/index.js';
import type { Queryable } from '../platform/db.js';
import type { TransactionRecord } from './movements.js';
import type { ReportItem, SettlementReport } from './settlement-report.js';
import { scopeValues, toTransaction } from './store.js';

/**
 * Settlement items of a dispute's money (docs/ledger.md, "Disputes"): a provider's chargeback line
 * (Adyen's Chargeback and SecondChargeback, Stripe's `dispute` adjustment, Mollie's settled
 * chargeback) settles one of the dispute's `dispute` transactions, a reversal line (ChargebackReversed,
 * `dispute_reversal`) one of its `dispute_reversal` ones. A dispute may be withdrawn twice (a second
 * chargeback), so several movements of one kind can answer to the same names: an item takes the
 * earliest that no settlement and no earlier item of the report holds. It is found by the
 * dispute's own names (our dispute id, the provider's dispute id) and, when the line names only the
 * disputed payment (Adyen's Psp Reference), by that payment's provider reference. A line whose
 * movement the ledger has not recorded yet refuses the report, like any unknown item.
 */

export type DisputeItem = ReportItem & { type: 'dispute' | 'dispute_reversal' };

export const isDisputeItem = (item: ReportItem): item is DisputeItem =>
  item.type === 'dispute' || item.type === 'dispute_reversal';

const BY_DISPUTE = `SELECT * FROM transactions
  WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND currency = $4 AND type = $5 AND entity_type = 'dispute'
    AND status = 'successful' AND settlement_id IS NULL AND NOT (id = ANY($6))
    AND (entity_id = $7 OR provider_reference = $8)
  ORDER BY occurred_at, id LIMIT 1 FOR UPDATE`;

const BY_PAYMENT = `SELECT * FROM transactions
  WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND currency = $4 AND type = $5 AND entity_type = 'dispute'
    AND status = 'successful' AND settlement_id IS NULL AND NOT (id = ANY($6))
    AND payment_id IN (
      SELECT entity_id FROM transactions
      WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND type = 'payment' AND entity_type = 'payment'
        AND provider_reference = $7)
  ORDER BY occurred_at, id LIMIT 1 FOR UPDATE`;

/** The dispute movement item `i` settles, not one of `taken` (matched by earlier items). */
export async function matchDisputeItem(
  tx: Queryable, r: SettlementReport, item: DisputeItem, i: number, taken: string[],
): Promise<TransactionRecord> {
  const head = [...scopeValues(r.scope), r.currency, item.type, taken];
  let found: Record<string, unknown> | undefined;
  if (item.entityId || item.providerReference) {
    found = (await tx.query(BY_DISPUTE, [...head, item.entityId ?? null, item.providerReference ?? null])).rows[0];
  }
  if (!found && item.paymentReference) found = (await tx.query(BY_PAYMENT, [...head, item.paymentReference])).rows[0];
  if (!found) {
    const what = item.type === 'dispute' ? 'dispute withdrawal' : 'dispute reinstatement';
    const names = [item.entityId, item.providerReference, item.paymentReference && `of payment ${item.paymentReference}`];
    throw invalidField(`items[${i}]`, `no ${what} ${names.filter(Boolean).join(' / ')} in ${r.currency} awaiting settlement ` +
      'is recorded for this scope yet; ingest the report again once the ledger has it');
  }
  return toTransaction(found);
}
