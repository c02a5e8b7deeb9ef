import { create } from '@bufbuild/protobuf';
import { ScopeSchema } from '../../proto/gen/svc/common/v1/common_pb.js';
import { newSecret, serviceError, sha256Hex, type Clock } from '../shared/index.js';
import type { ProviderAnswer } from './attempts.js';
import type { CustomerActionRequired } from './connectors/types.js';
import { applyApproval, writeChange, type Change } from './lifecycle.js';
import type { AttemptRecord, CustomerActionRecord, FailureJson, PaymentRecord, TimelineEntry } from './model.js';
import { assertAllowed } from './state-machine.js';
import type { PaymentsStore } from './store.js';

/**
 * Asynchronous rails: a provider answers requires_action and the customer finishes the payment on
 * a page (redirect, QR code, bank transfer details). The payment waits in `processing` with
 * `next_action`; the customer's approval, decline or the action's expiry moves it on. In test mode
 * the page is the gateway's sandbox page, found by an unguessable token; in live mode it is the
 * provider's own (`next_action.url` as the connector returned it).
 */

/** Where the gateway serves the sandbox page; next_action.url is this path plus the token. */
export const SANDBOX_PAGE_PATH = '/sandbox/actions/';

// 43 base62 characters: 256 bits, so a token cannot be guessed, only handed out.
const TOKEN_PREFIX = 'act_';
const TOKEN = /^act_[0-9A-Za-z]{43}$/;

export const CUSTOMER_OUTCOMES = ['approve', 'decline', 'expire'] as const;
export type CustomerOutcome = (typeof CUSTOMER_OUTCOMES)[number];

const FAILURE: Record<Exclude<CustomerOutcome, 'approve'>, FailureJson> = {
  // A person said no: final, like a provider's hard decline.
  decline: { code: 'customer_declined', category: 'hard', message: 'The customer declined the payment.' },
  // Our time limit ended it, not a provider or a fault: policy.
  expire: {
    code: 'customer_action_expired', category: 'policy', message: 'The customer did not complete the payment in time.',
  },
};

const CLOSED_AS = { approve: 'approved', decline: 'declined', expire: 'expired' } as const;

const WHAT: Record<string, string> = {
  redirect: 'redirect to the payment page', qr_code: 'QR code to scan', display_details: 'bank transfer details',
};

/**
 * A request for action the customer cannot act on is treated as an unknown outcome: a live
 * provider must name its own page (a live payment never shows the sandbox's). The payment then
 * waits for the provider instead.
 */
export function actionable(mode: string, answer: ProviderAnswer): ProviderAnswer {
  const r = answer.result;
  if (r.outcome !== 'requires_action' || (r.customerAction && (mode === 'test' || r.customerAction.url))) return answer;
  return {
    ...answer,
    result: {
      ...r,
      outcome: 'unknown',
      customerAction: undefined,
      providerMessage: 'The provider asked for a customer action without a page to send the customer to.',
    },
  };
}

/**
 * The provider waits for the customer: sets the payment's next_action, narrates it and returns the
 * action to insert in the same commit. The sandbox token exists only in next_action.url (which the
 * merchant receives); the action row keeps its hash.
 */
export function openCustomerAction(
  payment: PaymentRecord, attempt: AttemptRecord, required: CustomerActionRequired,
  settings: { ttlMinutes: number; publicBaseUrl?: string }, at: Date, timeline: TimelineEntry[],
): CustomerActionRecord {
  const { ttlMinutes } = settings;
  const sandbox = payment.mode === 'test';
  const token = sandbox ? newSecret(TOKEN_PREFIX, 43) : null;
  // Absolute when the deployment knows its public address (PUBLIC_BASE_URL), so a customer's
  // browser or a QR code can open it as is; otherwise relative to the API's base URL.
  const url = token ? `${settings.publicBaseUrl ?? ''}${SANDBOX_PAGE_PATH}${token}` : required.url!;
  const expiresAt = required.expiresAt ?? new Date(at.getTime() + ttlMinutes * 60_000);
  payment.nextAction = {
    type: required.type,
    url,
    qrPayload: required.type === 'qr_code' ? (sandbox ? url : required.qrPayload ?? url) : '',
    expiresAt: expiresAt.toISOString(),
  };
  timeline.push({
    type: 'customer_action.required',
    title: `Awaiting the customer: ${WHAT[required.type] ?? required.type}`,
    attemptId: attempt.id,
    data: { type: required.type, page: sandbox ? 'sandbox' : 'provider', expires_at: expiresAt.toISOString() },
  });
  return {
    attemptId: attempt.id,
    paymentId: payment.id,
    merchantId: payment.merchantId,
    projectId: payment.projectId,
    mode: payment.mode,
    tokenHash: token && sha256Hex(token),
    type: required.type,
    feeAmount: required.fee,
    expiresAt,
    createdAt: at,
    completedAt: null,
    outcome: null,
  };
}

/**
 * The customer's answer, or the action's expiry, moves the payment on. Approval is the provider
 * completing the payment (successful, or authorized with manual capture); a decline is final (hard);
 * past its expiry the provider no longer waits, so a late approval or decline expires it instead.
 */
export function completeCustomerAction(
  payment: PaymentRecord, action: CustomerActionRecord, requested: CustomerOutcome, at: Date, by: 'customer' | 'expiry',
): Change {
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
  const outcome: CustomerOutcome = at >= action.expiresAt ? 'expire' : requested;
  payment.nextAction = null;
  payment.updatedAt = at;
  payment.processedAt = at;
  attempt.updatedAt = at;
  const n = attempt.attemptNumber;
  const timeline: TimelineEntry[] = [{
    type: 'customer_action.completed',
    title: outcome === 'expire' ? 'Customer action expired' : `Customer ${CLOSED_AS[outcome]} the payment`,
    attemptId: attempt.id,
    data: { outcome: CLOSED_AS[outcome], by, ...(outcome !== requested && { requested }) },
  }];

  if (outcome === 'approve') {
    attempt.outcome = 'success';
    attempt.status = 'succeeded';
    attempt.feeAmount = action.feeAmount;
    attempt.providerResponseCode = 'approved';
    attempt.providerMessage = 'Approved by the customer';
    payment.feeAmount = action.feeAmount;
    timeline.push({
      type: 'attempt.succeeded',
      title: `Attempt ${n}: success`,
      attemptId: attempt.id,
      data: {
        outcome: 'success', provider_code: 'approved', fee_amount: Number(action.feeAmount), latency_ms: attempt.latencyMs,
      },
    });
    const approved = applyApproval(payment, attempt, timeline);
    payment.status = approved.status;
    return { attempts: [attempt], timeline, events: [approved.event], closesCustomerAction: 'approved' };
  }

  const failure = FAILURE[outcome];
  // The contract has no outcome for "the customer"; a decline is final like a hard decline, and an
  // expiry is the customer not answering in time.
  attempt.outcome = outcome === 'decline' ? 'hard_decline' : 'timeout';
  attempt.status = 'failed';
  attempt.failure = failure;
  attempt.providerResponseCode = failure.code;
  attempt.providerMessage = failure.message;
  payment.status = 'failed';
  payment.failure = failure;
  timeline.push(
    {
      type: 'attempt.failed',
      title: `Attempt ${n}: ${attempt.outcome}`,
      attemptId: attempt.id,
      data: { outcome: attempt.outcome, provider_code: failure.code, fee_amount: 0, latency_ms: attempt.latencyMs },
    },
    { type: 'payment.failed', title: 'Payment failed', data: { code: failure.code, category: failure.category } },
  );
  return { attempts: [attempt], timeline, events: ['payment.failed'], closesCustomerAction: CLOSED_AS[outcome] };
}

export interface CustomerActionsDeps {
  store: PaymentsStore;
  clock: Clock;
  relay: { kick(): void };
  /** CUSTOMER_ACTION_TTL_MINUTES: how long a customer action waits unless the provider says otherwise. */
  ttlMinutes: number;
  /** PUBLIC_BASE_URL: where customers reach the gateway (the sandbox page). */
  publicBaseUrl?: string;
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
    open: (
      payment: PaymentRecord, attempt: AttemptRecord, required: CustomerActionRequired, at: Date, timeline: TimelineEntry[],
    ) => openCustomerAction(payment, attempt, required, deps, at, timeline),

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
        await writeChange(store, tx, p, completeCustomerAction(p, action, outcome, at, 'customer'), at);
        return p;
      });
      deps.relay.kick();
      return payment;
    },
  };
}

export type CustomerActions = ReturnType<typeof createCustomerActions>;
