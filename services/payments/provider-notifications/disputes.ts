import { create } from '@bufbuild/protobuf';
import { ScopeSchema } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Queryable } from '../../platform/db.js';
import type { ProviderDispute } from '../../connectors/index.js';
import { DisputeViewRefused, type ApplyProviderView, type DisputeStore, type ProviderDisputeView } from '../disputes/index.js';
import type { PaymentsStore } from '../payments/index.js';
import type { Applied } from './store.js';

/**
 * A provider's dispute notification (or a sync's read of one), applied in the notification's own
 * transaction: the payment is found among the attempts of the account the notification was sent to
 * (our attempt id when the provider echoes it, else the provider's payment id), and the dispute's
 * view goes through applyProviderView like every input. A dispute of a payment not routed here, or
 * one the payment cannot carry, is recorded as unmatched with why (the row's note), never dropped.
 */
export type DisputeNotified = (tx: Queryable, account: { id: string; providerCode: string }, dispute: ProviderDispute) => Promise<Applied>;

const EFFECTS = { created: 'applied', applied: 'applied', confirmed: 'confirmed', ignored: 'ignored' } as const;

async function findPayment(tx: Queryable, accountId: string, d: ProviderDispute) {
  const { rows } = await tx.query(
    `SELECT a.payment_id, a.merchant_id, a.project_id, a.mode FROM payment_attempts a
     WHERE a.provider_account_id = $1 AND (a.id = $2 OR a.provider_payment_id = $3)
     ORDER BY (a.id = $2) DESC, a.created_at DESC LIMIT 1`,
    [accountId, d.attemptId ?? null, d.providerPaymentId ?? null],
  );
  return rows[0] as { payment_id: string; merchant_id: string; project_id: string; mode: string } | undefined;
}

export interface DisputeNotifiedDeps {
  store: Pick<PaymentsStore, 'getForUpdate'>;
  disputes: Pick<DisputeStore, 'forPayments'>;
  apply: ApplyProviderView;
}

export function disputeNotified({ store, disputes, apply }: DisputeNotifiedDeps): DisputeNotified {
  return async (tx, account, d) => {
    const named = `dispute ${d.providerDisputeId} of payment ${d.providerPaymentId ?? d.attemptId ?? '(none named)'}`;
    const found = await findPayment(tx, account.id, d);
    if (!found) return { effect: 'unmatched', note: `${named}: no payment of this account` };
    const scope = create(ScopeSchema, { merchantId: found.merchant_id, projectId: found.project_id, mode: found.mode });
    // Under the payment's lock (apply takes it again in this transaction): the stage a view without one keeps.
    await store.getForUpdate(tx, scope, found.payment_id);
    const current = d.stage ? undefined : (await disputes.forPayments([found.payment_id], tx))
      .find((x) => x.providerCode === account.providerCode && x.providerDisputeId === d.providerDisputeId);
    const view: ProviderDisputeView = {
      providerCode: account.providerCode, providerDisputeId: d.providerDisputeId, paymentId: found.payment_id,
      stage: d.stage ?? current?.stage ?? 'chargeback', status: d.status,
      reason: d.reason, providerReason: d.providerReason, amount: d.amount, currency: d.currency, feeAmount: d.feeAmount ?? null,
      fundsWithdrawn: d.fundsWithdrawn, evidenceDueBy: d.evidenceDueBy, occurredAt: d.occurredAt, sequence: d.sequence ?? null,
    };
    try {
      const applied = await apply(scope, view, { tx });
      return { effect: EFFECTS[applied.verdict], paymentId: found.payment_id, disputeId: applied.dispute.id };
    } catch (err) {
      if (!(err instanceof DisputeViewRefused)) throw err;
      return { effect: 'unmatched', paymentId: found.payment_id, note: `${named}: ${err.code} (${err.message})` };
    }
  };
}
