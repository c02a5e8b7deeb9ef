import { create } from '@bufbuild/protobuf';
import { ScopeSchema } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Clock } from '../../platform/clock.js';
import { sha256Hex } from '../../platform/ids.js';
import { serviceError } from '../../contract/index.js';
import type { AuthorizeResult } from '../../connectors/index.js';
import type { ProviderAnswer } from './attempt-outcomes.js';
import { commitChange } from './commit.js';
import { TOKEN } from './customer-action-required.js';
import type { AttemptRecord, CustomerActionRecord, FailureJson, PaymentRecord, TimelineEntry } from './model.js';
import { assertAllowed } from './state-machine.js';
import type { PaymentsStore } from './store.js';
import { approve, fail, type Change } from './transitions.js';

/**
 * Asynchronous rails: a provider answers requires_action and the customer finishes the payment on
 * a page (redirect, QR code, bank transfer details). The payment waits in `processing` with
 * `next_action`; the customer's approval, decline or the action's expiry moves it on. In test mode
 * the page is the gateway's sandbox page, found by an unguessable token; in live mode it is the
 * provider's own (`next_action.url` as the connector returned it).
 */

export const CUSTOMER_OUTCOMES = ['approve', 'decline', 'expire'] as const;
export type CustomerOutcome = (typeof CUSTOMER_OUTCOMES)[number];

const FAILURE: Record<Exclude<CustomerOutcome, 'approve'>, FailureJson> = {
  // A person said no: final, like a provider's hard decline.
  decline: { code: 'customer_declined', category: 'hard', message: 'The customer declined the payment.', declineReason: 'customer_cancelled' },
  // Our time limit ended it, not a provider or a fault: policy.
  expire: {
    code: 'customer_action_expired', category: 'policy', message: 'The customer did not complete the payment in time.',
    declineReason: 'customer_action_expired',
  },
};

const CLOSED_AS = { approve: 'approved', decline: 'declined', expire: 'expired' } as const;

/** The attempt that waits for the customer on this action; 409 when the payment awaits none or another. */
function waitingAttempt(payment: PaymentRecord, action: CustomerActionRecord): AttemptRecord {
  if (action.completedAt) {
    throw serviceError(
      'invalid_state_transition',
      `This customer action was already completed (${action.outcome}); payment ${payment.id} is ${payment.status}.`,
      { param: 'action_token' },
    );
  }
  assertAllowed('complete_customer_action', payment);
  const attempt = payment.attempts.find(
    (a) => a.id === action.attemptId && a.status === 'processing' && a.outcome === 'requires_action',
  );
  if (!attempt) {
    const message = `Payment ${payment.id} awaits another action.`;
    throw serviceError('invalid_state_transition', message, { param: 'action_token' });
  }
  return attempt;
}

/**
 * The one completion of a customer action, whoever reports it: the provider's outcome of the
 * attempt that waited moves the payment on (approve or fail) and closes the action, narrated first.
 * The payment took as long as the provider's request did; the customer's time is not counted.
 */
function closeAction(
  payment: PaymentRecord, attempt: AttemptRecord, answer: ProviderAnswer, at: Date,
  closed: { as: (typeof CLOSED_AS)[CustomerOutcome]; title: string; data: Record<string, unknown>; failure?: FailureJson },
): Change {
  const completed: TimelineEntry = {
    type: 'customer_action.completed', title: closed.title, attemptId: attempt.id, data: { outcome: closed.as, ...closed.data },
  };
  const change = answer.result.outcome === 'success'
    ? approve(payment, attempt, answer, { at })
    : fail(payment, attempt, answer, { at, failure: closed.failure });
  return { ...change, timeline: [completed, ...change.timeline], closesCustomerAction: closed.as };
}

/**
 * The customer's answer, or the action's expiry, moves the payment on. Approval is the provider
 * completing the payment (successful, or authorized with manual capture); a decline is final (hard);
 * past its expiry the provider no longer waits, so a late approval or decline expires it instead.
 */
export function completeCustomerAction(
  payment: PaymentRecord, action: CustomerActionRecord, requested: CustomerOutcome, at: Date, by: 'customer' | 'expiry',
): Change {
  const attempt = waitingAttempt(payment, action);
  const outcome: CustomerOutcome = at >= action.expiresAt ? 'expire' : requested;
  // The customer's answer is the provider's outcome of the attempt that waited for it.
  const failure = outcome === 'approve' ? undefined : FAILURE[outcome];
  const answer: ProviderAnswer = {
    result: failure
      // The contract has no outcome for "the customer"; a decline is final like a hard decline, and
      // an expiry is the customer not answering in time.
      ? { outcome: outcome === 'decline' ? 'hard_decline' : 'timeout', providerPaymentId: attempt.providerPaymentId,
          providerCode: failure.code, providerMessage: failure.message, fee: 0n }
      : { outcome: 'success', providerPaymentId: attempt.providerPaymentId,
          providerCode: 'approved', providerMessage: 'Approved by the customer', fee: action.feeAmount },
    latencyMs: attempt.latencyMs ?? 0,
  };
  return closeAction(payment, attempt, answer, at, {
    as: CLOSED_AS[outcome],
    title: outcome === 'expire' ? 'Customer action expired' : `Customer ${CLOSED_AS[outcome]} the payment`,
    data: { by, ...(outcome !== requested && { requested }) },
    failure,
  });
}

/**
 * The provider reports what the customer did on its page (a verified notification, or its status
 * query by reconciliation when no notification came before the action's expiry): its outcome
 * of the waiting attempt completes the action as the customer's answer would. The provider's word
 * stands even past the action's expiry, since it may have charged. A success is charged the fee
 * quoted when the action opened (a notification quotes none); a decline fails the payment with the
 * connector's failure. An outcome that decides nothing (unknown, requires_action) is undefined.
 */
export function providerCompletesCustomerAction(
  payment: PaymentRecord, action: CustomerActionRecord, result: AuthorizeResult, at: Date,
  source: { eventId: string } | { by: 'reconciliation' },
): Change | undefined {
  if (result.outcome === 'unknown' || result.outcome === 'requires_action') return undefined;
  const attempt = waitingAttempt(payment, action);
  const approved = result.outcome === 'success';
  const answer: ProviderAnswer = {
    result: {
      ...result,
      providerPaymentId: result.providerPaymentId ?? attempt.providerPaymentId,
      fee: approved ? (result.fee > 0n ? result.fee : action.feeAmount) : 0n,
    },
    latencyMs: attempt.latencyMs ?? 0,
  };
  const as = approved ? 'approved' : 'declined';
  return closeAction(payment, attempt, answer, at, {
    as,
    title: `Provider reports the customer ${as} the payment`,
    data: 'eventId' in source ? { by: 'provider', event_id: source.eventId } : { by: 'reconciliation' },
  });
}

export interface CustomerActionsDeps {
  store: PaymentsStore;
  clock: Clock;
  relay: { kick(): void };
}

export function createCustomerActions(deps: CustomerActionsDeps) {
  const { store, clock } = deps;

  /** The token's hash; a malformed token is answered like an unknown one. */
  function hashOf(token: string): string {
    if (!TOKEN.test(token)) throw notFound();
    return sha256Hex(token);
  }
  const notFound = () =>
    serviceError('resource_not_found', 'No customer action has this token.', { param: 'action_token' });
  const scopeOf = (a: CustomerActionRecord) =>
    create(ScopeSchema, { merchantId: a.merchantId, projectId: a.projectId, mode: a.mode });

  return {
    /** What the page shows: the payment behind the token, whether or not it still awaits the customer. */
    async view(token: string): Promise<PaymentRecord> {
      const action = await store.customerActionByToken(hashOf(token));
      const payment = action && (await store.get(scopeOf(action), action.paymentId));
      if (!payment) throw notFound();
      return payment;
    },

    /** Lock, re-read, decide, write, like every lifecycle change; the relay is woken after the commit. */
    async complete(token: string, outcome: CustomerOutcome): Promise<PaymentRecord> {
      const hash = hashOf(token);
      const payment = await store.transaction(async (tx) => {
        const found = await store.customerActionByToken(hash, tx);
        if (!found) throw notFound();
        const p = await store.getForUpdate(tx, scopeOf(found), found.paymentId);
        // Read again under the lock: a completion committed while we waited for it shows now.
        const action = await store.customerActionByToken(hash, tx);
        if (!p || !action) throw notFound();
        const at = clock.now();
        await commitChange(store, completeCustomerAction(p, action, outcome, at, 'customer'), { tx });
        return p;
      });
      deps.relay.kick();
      return payment;
    },
  };
}

export type CustomerActions = ReturnType<typeof createCustomerActions>;
