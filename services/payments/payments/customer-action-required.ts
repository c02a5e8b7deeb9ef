import { newSecret, sha256Hex } from '../../platform/ids.js';
import type { ProviderAnswer } from './attempt-outcomes.js';
import type { AttemptRecord, CustomerActionRecord, PaymentRecord, TimelineEntry } from './model.js';
import type { CustomerActionRequired } from '../../connectors/index.js';

/**
 * A provider's requires_action, as the payment shows it: whether the customer can act on it, and
 * the action (sandbox page or provider page) the payment then waits on. Pure, so the transition
 * that opens it (awaitCustomer in transitions.ts) stays pure too.
 */

/** Where the gateway serves the sandbox page; next_action.url is this path plus the token. */
export const SANDBOX_PAGE_PATH = '/sandbox/actions/';

// 43 base62 characters: 256 bits, so a token cannot be guessed, only handed out.
const TOKEN_PREFIX = 'act_';
export const TOKEN = /^act_[0-9A-Za-z]{43}$/;

const WHAT: Record<string, string> = {
  redirect: 'redirect to the payment page', qr_code: 'QR code to scan', display_details: 'bank transfer details',
};

export interface CustomerActionSettings {
  /** CUSTOMER_ACTION_TTL_MINUTES: how long a customer action waits unless the provider says otherwise. */
  ttlMinutes: number;
  /** PUBLIC_BASE_URL: where customers reach the gateway (the sandbox page). */
  publicBaseUrl?: string;
}

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
  settings: CustomerActionSettings, at: Date, timeline: TimelineEntry[],
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
