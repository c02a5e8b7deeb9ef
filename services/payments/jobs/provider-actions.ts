import { create } from '@bufbuild/protobuf';
import { ScopeSchema } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Clock } from '../../platform/clock.js';
import { withDeadline } from '../../platform/deadline.js';
import type { ConnectorRegistry, HoldResult } from '../../connectors/index.js';
import {
  type AttemptRecord, awaitingCustomer, type Change, commitChange, completeCustomerAction, type CustomerActionRecord,
  type PaymentRecord, type PaymentsStore, providerCall, providerCompletesCustomerAction, queryStatus,
} from '../payments/index.js';

/**
 * A customer action on a provider's own page (live) that reached its expiry with no notification:
 * the customer may have paid there unseen, so the provider is asked (its status query by the
 * attempt id) before anything ends the payment. Paid or declined there: completed as the
 * notification would have. Still waiting: released at the provider first (so the customer can no
 * longer pay a payment ended here), then expired. No answer, or a refused release (it was paid
 * meanwhile), leaves it for the next round, which asks again. Part of reconciliation's round.
 */

export interface ProviderActionDeps {
  store: PaymentsStore;
  connectors: ConnectorRegistry;
  clock: Clock;
  providerTimeoutMs: number;
}

type Decide = (payment: PaymentRecord, action: CustomerActionRecord, at: Date) => Change | undefined;

/** Applies `decide` under the payment's row lock if the same action still waits; true when it changed the payment. */
async function underLock(deps: ProviderActionDeps, due: CustomerActionRecord, decide: Decide): Promise<boolean> {
  const scope = create(ScopeSchema, { merchantId: due.merchantId, projectId: due.projectId, mode: due.mode });
  return deps.store.transaction(async (tx) => {
    const payment = await deps.store.getForUpdate(tx, scope, due.paymentId);
    const action = await deps.store.openCustomerAction(tx, due.paymentId);
    if (!payment || !action || action.attemptId !== due.attemptId || !awaitingCustomer(payment)) return false;
    const change = decide(payment, action, deps.clock.now());
    if (!change) return false;
    await commitChange(deps.store, change, { tx });
    return true;
  });
}

/** Releases the wait at the provider; a connector without holds has nothing to release. */
async function release(deps: ProviderActionDeps, payment: PaymentRecord, attempt: AttemptRecord): Promise<boolean> {
  const connector = deps.connectors.forProvider(attempt.providerCode);
  if (!connector?.cancel || !attempt.providerPaymentId) return true;
  const providerPaymentId = attempt.providerPaymentId;
  const result: HoldResult = await withDeadline(deps.providerTimeoutMs, (signal) => connector.cancel!({
    account: { providerCode: attempt.providerCode, id: attempt.providerAccountId }, paymentId: payment.id,
    operationId: `${attempt.id}_expire`, providerPaymentId, amount: payment.amount, currency: payment.currency, signal,
  }));
  return result.outcome === 'success';
}

/** One due action: true when the payment was completed or expired. Throws when the provider could not be asked. */
export async function settleDueProviderAction(deps: ProviderActionDeps, due: CustomerActionRecord): Promise<boolean> {
  const scope = create(ScopeSchema, { merchantId: due.merchantId, projectId: due.projectId, mode: due.mode });
  const payment = await deps.store.get(scope, due.paymentId);
  const attempt = payment?.attempts.find((a) => a.id === due.attemptId);
  const connector = attempt && deps.connectors.forProvider(attempt.providerCode);
  if (!payment || !attempt || !connector || !awaitingCustomer(payment)) return false;
  const answer = await queryStatus(connector, providerCall(payment, attempt), deps.providerTimeoutMs,
    'The customer action expired without a notification from the provider.');
  const outcome = answer.result.outcome;
  if (outcome !== 'requires_action' && outcome !== 'unknown') {
    return underLock(deps, due, (p, action, at) =>
      providerCompletesCustomerAction(p, action, answer.result, at, { by: 'reconciliation' }));
  }
  if (!(await release(deps, payment, attempt))) return false;
  return underLock(deps, due, (p, action, at) => completeCustomerAction(p, action, 'expire', at, 'expiry'));
}
