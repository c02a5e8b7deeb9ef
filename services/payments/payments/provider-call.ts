// One provider attempt's I/O: the call under a deadline and the status query after a time-out.
// What the answer means is attempt-outcomes.ts (pure); this file only asks and settles the fee.
import type {
  AttemptOutcome, AuthorizeRequest, AuthorizeResult, Connector, PaymentStatusResult, RoutedAccount,
} from '../../connectors/index.js';
import type { RouteCandidate } from '../../../proto/gen/svc/routing/v1/routing_pb.js';
import { DeadlineExceeded, withDeadline } from '../../platform/deadline.js';
import { settled, type ProviderAnswer } from './attempt-outcomes.js';
import type { AttemptRecord, PaymentRecord } from './model.js';

/** An authorize or status request before its deadline is set: the call adds the signal. */
export type ProviderCall = Omit<AuthorizeRequest, 'signal'>;

/**
 * What the connector is sent for an attempt: the same request for authorize and for every later
 * status query, so a provider finds the attempt by its id. Only the request that makes the payment
 * knows the method's token (it is never stored) and the demo account's latency.
 */
export function providerCall(
  payment: PaymentRecord, attempt: AttemptRecord,
  routed: { latencyMs?: number; paymentMethodToken?: string; forwarding?: ProviderCall['forwarding'] } = {},
): ProviderCall {
  return {
    account: accountOf(attempt, routed.latencyMs),
    paymentId: payment.id,
    attemptId: attempt.id,
    attemptNumber: attempt.attemptNumber,
    amount: payment.amount,
    currency: payment.currency,
    methodType: payment.paymentMethodType,
    captureMethod: payment.captureMethod,
    paymentMethodToken: routed.paymentMethodToken,
    ...(routed.forwarding && { forwarding: routed.forwarding }),
    ...(payment.mitNetworkTransactionId && { merchantInitiated: { networkTransactionId: payment.mitNetworkTransactionId } }),
    testScenario: payment.testScenario ?? undefined,
    ...(payment.mode === 'test' && { sandbox: { projectId: payment.projectId, country: payment.country } }),
    returnUrl: payment.returnUrl ?? undefined,
  };
}

/**
 * How a route candidate is reached: through a vault (its connection forwards the card), or
 * directly (undefined). A vault without its connection's id is still forwarded, and fails at the
 * vault for want of credentials rather than sending the vault's reference to the provider as a token.
 */
export function forwardingOf(c: Pick<RouteCandidate, 'vault' | 'vaultAccountId'>): ProviderCall['forwarding'] {
  return c.vault ? { vault: c.vault, vaultAccountId: c.vaultAccountId ?? '' } : undefined;
}

/** The account an attempt acts for, with the pricing it was routed with (0 for attempts made before it was recorded). */
function accountOf(a: AttemptRecord, latencyMs = 0): RoutedAccount {
  return { providerCode: a.providerCode, id: a.providerAccountId, feeFixed: a.feeFixed ?? 0n, feeBps: a.feeBps ?? 0, latencyMs };
}

const OPEN_OUTCOMES = new Set<AttemptOutcome>(['timeout', 'unknown']);

const noAnswer = (outcome: AttemptOutcome, message: string): AuthorizeResult => ({
  outcome, providerPaymentId: null, providerCode: null, providerMessage: message, fee: 0n,
});

/**
 * Calls the provider and settles the outcome. A call that times out or fails in transit may
 * still have reached the provider, so the provider is asked before anything else happens:
 * never received means a plain time-out (safe to fail over); an answer is taken as the
 * outcome; no usable answer leaves the attempt `unknown`.
 */
export async function callProvider(
  connector: Connector | undefined, req: ProviderCall, timeoutMs: number,
): Promise<ProviderAnswer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // Nothing was sent, so nothing can have been charged.
  if (!connector) return { result: noAnswer('provider_unavailable', 'No connector is installed for this provider.'), latencyMs: 0 };

  let result: AuthorizeResult | undefined;
  let trouble = 'The provider did not answer in time.';
  try {
    result = await withDeadline(timeoutMs, (signal) => connector.authorize({ ...req, signal }));
  } catch (err) {
    if (!(err instanceof DeadlineExceeded)) trouble = `The call to the provider failed: ${(err as Error).message}`;
  }
  if (result && !OPEN_OUTCOMES.has(result.outcome)) return { result: settled(result), latencyMs: elapsed() };
  if (result?.outcome === 'unknown') trouble = 'The provider could not tell the outcome.';
  const answer = await queryStatus(connector, req, timeoutMs, trouble);
  return { ...answer, latencyMs: elapsed() };
}

/**
 * Asks the provider what became of an attempt whose answer never arrived (`reason` says why):
 * never received means a plain time-out, nobody charged; a definite answer is the outcome; no
 * usable answer leaves the attempt `unknown`. Used right after a failed call, and later by the
 * reconciliation of attempts left open.
 */
export async function queryStatus(
  connector: Connector, req: ProviderCall, timeoutMs: number, trouble: string,
): Promise<ProviderAnswer> {
  const queryStarted = performance.now();
  let status: PaymentStatusResult | undefined;
  let queryError: string | null = null;
  try {
    status = await withDeadline(timeoutMs, (signal) => connector.getStatus({ ...req, signal }));
  } catch (err) {
    queryError = (err as Error).message;
  }
  const statusQuery = {
    reason: trouble,
    found: status ? status.found : null,
    outcome: status?.found ? status.outcome : null,
    error: queryError,
    latencyMs: Math.round(performance.now() - queryStarted),
  };
  let final: AuthorizeResult;
  if (status && !status.found) {
    final = noAnswer('timeout', `${trouble} Its status query shows it never received the payment.`);
  } else if (status?.found && !OPEN_OUTCOMES.has(status.outcome)) {
    // requires_action included: the provider holds the payment for the customer, as if authorize had said so.
    const { found: _found, ...answer } = status;
    final = settled(answer);
  } else {
    final = noAnswer('unknown', `${trouble} Its status query could not tell the outcome, so no other provider is tried.`);
  }
  return { result: final, latencyMs: statusQuery.latencyMs, statusQuery };
}

