// The requests a connector test hands a connector directly (no stack in between), built the way
// payments builds them: an attempt with its ids and the account's pricing, a capture or cancel of
// its hold under the operation id, a refund under a fresh refund id. What a stand-in provider
// received under an idempotency key, which is how each call is found again. And an attempt whose
// answer is lost while the provider goes on with it.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthorizeRequest, Connector, HoldRequest, RefundRequest } from '../../services/connectors/index.js';
import { newId } from '../../services/platform/ids.js';

/** A fresh deadline for one call: long enough for a stand-in, short enough to fail a stuck test. */
export const callSignal = () => AbortSignal.timeout(5_000);

/** A 25.00 EUR card attempt, captured at once, at `account` with `paymentMethodToken`, unless `over` says otherwise. */
export function attemptAt(
  account: AuthorizeRequest['account'], paymentMethodToken: string, over: Partial<AuthorizeRequest> = {},
): AuthorizeRequest {
  return {
    account, paymentId: newId('pay'), attemptId: newId('att'), attemptNumber: 1, amount: 2500n, currency: 'EUR',
    methodType: 'card', captureMethod: 'automatic', paymentMethodToken, signal: callSignal(), ...over,
  };
}

/** A capture or cancel (`op`) of the attempt's hold, keyed `<attempt>_<op>` as payments keys it. */
export function holdOf(req: AuthorizeRequest, providerPaymentId: string, op: string, amount = req.amount): HoldRequest {
  return {
    account: req.account, paymentId: req.paymentId, operationId: `${req.attemptId}_${op}`, providerPaymentId, amount,
    currency: req.currency, signal: callSignal(),
  };
}

/** A refund of `amount` of the attempt's payment, under a fresh refund id. */
export function refundOf(req: AuthorizeRequest, providerPaymentId: string | null, amount: bigint): RefundRequest {
  return {
    account: req.account, refundId: newId('rf'), paymentId: req.paymentId, providerPaymentId, amount,
    currency: req.currency, reason: 'customer asked', signal: callSignal(),
  };
}

/** The requests a stand-in recorded under an Idempotency-Key, oldest first. */
export function sentUnder<R extends { headers: IncomingHttpHeaders }>(requests: readonly R[], key: string): R[] {
  return requests.filter((r) => r.headers['idempotency-key'] === key);
}

/** How long a stand-in holds back the answer to its slow token in `authorizeLosingAnswer`. */
const SLOW_ANSWER_MS = 1_200;

/**
 * Authorizes `req` (with the stand-in's slow token) under a 200 ms deadline while the stand-in
 * holds its answer back: the attempt times out at once, and the provider still makes the payment.
 * `answered()` waits, from when it is called, longer than the stand-in holds an answer back.
 */
export async function authorizeLosingAnswer(
  connector: Connector, standIn: { slowAnswerMs: number }, req: AuthorizeRequest,
): Promise<{ answered(): Promise<void> }> {
  standIn.slowAnswerMs = SLOW_ANSWER_MS;
  const started = Date.now();
  const lost = await connector.authorize({ ...req, signal: AbortSignal.timeout(200) });
  assert.equal(lost.outcome, 'timeout', 'the request signal ends the HTTP call');
  assert.ok(Date.now() - started < 1_000);
  return { answered: () => sleep(SLOW_ANSWER_MS + 100) };
}
