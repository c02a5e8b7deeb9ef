// What the ledger is told of a late charge's money (internal.late_charge.moved): the charge when it
// is recorded, its return when the provider confirms it, each in the same transaction as that record.
import { newId } from '../../platform/ids.js';
import {
  internalEnvelope, lateChargeMovedObject, type InternalObject, type LateChargeMoved,
} from '../../platform/internal-events.js';
import { outboxRow } from '../../platform/outbox.js';
import type { RowWrite } from '../../platform/row-writes.js';
import type { LateCharge } from './late-charge.js';

/** A hold (capture_method manual) moved no money, so it has nothing to book: undefined. */
export function lateChargeMoved(c: LateCharge, kind: LateChargeMoved['kind'], at: Date): InternalObject | undefined {
  if (c.held) return undefined;
  return lateChargeMovedObject({
    version: 1, id: c.attemptId, payment_id: c.paymentId, kind, amount: c.amount,
    // No provider reports its fee with a late success today; the return carries none.
    fee_amount: 0n,
    currency: c.currency, provider_code: c.providerCode, provider_account_id: c.providerAccountId,
    provider_payment_id: c.providerPaymentId, moved_at: at.toISOString(),
  });
}

/** The outbox row of a charge's `charged` event. */
export function lateChargedRows(c: LateCharge, at: Date): RowWrite[] {
  const object = lateChargeMoved(c, 'charged', at);
  if (!object) return [];
  const scope = { mode: c.mode, merchantId: c.merchantId, projectId: c.projectId };
  return [outboxRow(internalEnvelope(newId('evt', at), scope, at, object))];
}
