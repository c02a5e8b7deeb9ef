// What a provider's answer means, table by table: the answer, the attempt it makes (outcome,
// status, failure, fee) and the payment transition it causes. Pure: no connector, no database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RouteCandidate } from '../../../proto/gen/svc/routing/v1/routing_pb.js';
import type { AuthorizeResult } from '../../connectors/index.js';
import { nextStep, paymentFailure, recordAnswer, settled, withCard } from './attempt-outcomes.js';
import type { AttemptRecord, FailureJson, PaymentRecord, TimelineEntry } from './model.js';
import { settleAttempt } from './transitions.js';

const AT = new Date('2025-01-02T03:04:05.000Z');
const approved: AuthorizeResult = { outcome: 'success', providerPaymentId: 'x_1', providerCode: 'approved', providerMessage: 'OK', fee: 20n };
const next = { providerId: 'prv_b', providerCode: 'b', providerName: 'B', providerAccountId: 'pac_b', feeFixed: 0n, feeBps: 0 } as RouteCandidate;
const customerActions = { ttlMinutes: 30 };

function paymentWithAttempt(captureMethod: string): PaymentRecord {
  const attempt = {
    id: 'att_1', attemptNumber: 1, status: 'processing', outcome: null, providerCode: 'a', providerName: 'A',
    providerAccountId: 'pac_a', providerPaymentId: null, failure: null, feeAmount: 0n, latencyMs: null, updatedAt: AT,
  } as unknown as AttemptRecord;
  return {
    id: 'pay_1', mode: 'test', status: 'created', amount: 1000n, capturedAmount: 0n, refundedAmount: 0n, captureMethod,
    currency: 'EUR', attempts: [attempt], attemptCount: 1, nextAction: null, failure: null, feeAmount: 0n,
    createdAt: new Date(AT.getTime() - 50), updatedAt: AT, processedAt: null,
  } as unknown as PaymentRecord;
}

interface Row {
  answer: Partial<AuthorizeResult> & Pick<AuthorizeResult, 'outcome'>;
  next?: boolean;
  capture?: 'automatic' | 'manual';
  /** The attempt after the answer: its status, its failure code, its fee. */
  attempt: [status: string, failure: string | null, fee: bigint];
  /** The payment after the transition: its status, its failure code, the events, how many attempts. */
  payment: [status: string, failure: string | null, events: string[], attempts: number];
}

const redirect = { type: 'redirect', url: 'https://provider.example/pay', fee: 20n } as AuthorizeResult['customerAction'];
const ROWS: Record<string, Row> = {
  'success, automatic capture': { answer: approved, next: true, attempt: ['succeeded', null, 20n], payment: ['successful', null, ['payment.successful'], 1] },
  'success, manual capture': { answer: approved, capture: 'manual', attempt: ['authorized', null, 20n], payment: ['authorized', null, ['payment.authorized'], 1] },
  'soft decline with a next provider': { answer: { outcome: 'soft_decline' }, next: true, attempt: ['failed', 'soft_decline', 0n], payment: ['created', null, [], 2] },
  'soft decline, last provider': { answer: { outcome: 'soft_decline' }, attempt: ['failed', 'soft_decline', 0n], payment: ['failed', 'soft_decline', ['payment.failed'], 1] },
  'hard decline never fails over': { answer: { outcome: 'hard_decline' }, next: true, attempt: ['failed', 'hard_decline', 0n], payment: ['failed', 'hard_decline', ['payment.failed'], 1] },
  'the connector\'s own failure': {
    answer: { outcome: 'hard_decline', failure: { code: 'card_declined', category: 'hard', message: 'Declined.' } },
    attempt: ['failed', 'card_declined', 0n], payment: ['failed', 'card_declined', ['payment.failed'], 1],
  },
  'technical error fails over': { answer: { outcome: 'technical_error' }, next: true, attempt: ['failed', 'provider_error', 0n], payment: ['created', null, [], 2] },
  'time-out, last provider': { answer: { outcome: 'timeout' }, attempt: ['failed', 'provider_timeout', 0n], payment: ['failed', 'provider_timeout', ['payment.failed'], 1] },
  'provider unavailable fails over': { answer: { outcome: 'provider_unavailable' }, next: true, attempt: ['failed', 'provider_unavailable', 0n], payment: ['created', null, [], 2] },
  'unknown waits for the provider': { answer: { outcome: 'unknown' }, next: true, attempt: ['unknown', null, 0n], payment: ['processing', null, ['payment.processing'], 1] },
  'requires action waits for the customer': {
    answer: { outcome: 'requires_action', customerAction: redirect }, next: true,
    attempt: ['processing', null, 0n], payment: ['processing', null, ['payment.processing'], 1],
  },
};

test('provider answer → attempt outcome and status → payment transition', () => {
  for (const [name, row] of Object.entries(ROWS)) {
    const p = paymentWithAttempt(row.capture ?? 'automatic');
    const result = settled({ ...approved, providerCode: row.answer.outcome, ...row.answer });
    const change = settleAttempt(p, p.attempts[0], { result, latencyMs: 7 }, {
      at: AT, customerActions, ...(row.next && { next }),
    });
    const a = p.attempts[0];
    assert.deepEqual([a.status, a.failure?.code ?? null, a.feeAmount], row.attempt, `${name}: attempt`);
    assert.equal(a.outcome, row.answer.outcome, `${name}: outcome`);
    assert.deepEqual(
      [p.status, p.failure?.code ?? null, change.events, change.attempts.length], row.payment, `${name}: payment`,
    );
    // Only the customer's turn shows a next action, and opens the action in the same change.
    const waitsForCustomer = row.answer.outcome === 'requires_action';
    assert.equal(p.nextAction !== null, waitsForCustomer, `${name}: next_action`);
    assert.equal(change.opensCustomerAction !== undefined, waitsForCustomer, `${name}: customer action`);
  }
});

test('requires action without a page to send the customer to waits for the provider, with no next action', () => {
  const p = paymentWithAttempt('automatic');
  const change = settleAttempt(p, p.attempts[0], { result: settled({ ...approved, outcome: 'requires_action' }), latencyMs: 1 }, {
    at: AT, customerActions, next,
  });
  assert.deepEqual([p.status, p.attempts[0].status, p.nextAction, change.opensCustomerAction], ['processing', 'processing', null, undefined]);
  assert.equal(change.timeline.at(-1)!.title, "Awaiting the provider's outcome");
});

test('only a successful answer costs a fee, whatever the connector reports', () => {
  for (const outcome of ['soft_decline', 'hard_decline', 'technical_error', 'timeout', 'unknown', 'requires_action'] as const) {
    assert.equal(settled({ ...approved, outcome }).fee, 0n, outcome);
  }
  assert.equal(settled(approved).fee, 20n);
});

test('withCard: the credential\'s card facts fill an answer that names no card; the provider\'s own win', () => {
  const credential = { network: 'visa', binRange: '424242' };
  assert.deepEqual(withCard({ result: approved, latencyMs: 5 }, credential).result.card, credential);
  const told = { result: { ...approved, card: { network: 'mastercard', binRange: null } }, latencyMs: 5 };
  assert.deepEqual(withCard(told, credential).result.card, { network: 'mastercard', binRange: null });
  assert.equal(withCard({ result: approved, latencyMs: 5 }, undefined).result.card, undefined);
});

test('nextStep: success completes, hard declines are final, open outcomes never fail over', () => {
  assert.equal(nextStep('success', true), 'succeed');
  for (const o of ['soft_decline', 'technical_error', 'timeout', 'provider_unavailable']) {
    assert.equal(nextStep(o, true), 'fail_over', o);
    assert.equal(nextStep(o, false), 'fail', o);
  }
  assert.equal(nextStep('hard_decline', true), 'fail');
  assert.equal(nextStep('unknown', true), 'await_provider');
  assert.equal(nextStep('unknown', false), 'await_provider');
});

test('paymentFailure: a decline outranks a technical fault; the latest of a category wins', () => {
  const f = (code: string, category: string) => ({ failure: { code, category, message: code } as FailureJson });
  assert.equal(paymentFailure([]), null);
  assert.equal(paymentFailure([f('provider_error', 'technical'), f('provider_timeout', 'technical')])!.code, 'provider_timeout');
  assert.equal(paymentFailure([f('soft_decline', 'soft'), f('provider_error', 'technical')])!.code, 'soft_decline');
  assert.equal(paymentFailure([f('provider_error', 'technical'), f('hard_decline', 'hard')])!.code, 'hard_decline');
  assert.equal(paymentFailure([{ failure: null }, f('provider_unavailable', 'technical')])!.code, 'provider_unavailable');
});

test('recordAnswer: attempt fields and the timeline of a recovered time-out', async () => {
  const attempt = { id: 'att_1', attemptNumber: 1, providerName: 'X', status: 'processing', outcome: null } as AttemptRecord;
  const timeline: TimelineEntry[] = [];
  recordAnswer(attempt, {
    result: approved, latencyMs: 12, statusQuery: { reason: 'late', found: true, outcome: 'success', error: null, latencyMs: 3 },
  }, new Date(), timeline);
  assert.equal(attempt.status, 'succeeded');
  assert.equal(attempt.outcome, 'success');
  assert.equal(attempt.feeAmount, 20n);
  assert.equal(attempt.latencyMs, 12);
  assert.equal(attempt.failure, null);
  assert.deepEqual(timeline.map((t) => t.type), ['attempt.timed_out', 'attempt.status_checked', 'attempt.succeeded']);

  const failed = { id: 'att_2', attemptNumber: 2, providerName: 'X' } as AttemptRecord;
  recordAnswer(failed, { result: { ...approved, outcome: 'hard_decline', fee: 0n }, latencyMs: 1 }, new Date(), []);
  assert.equal(failed.status, 'failed');
  // A decline without a reason from the connector is a generic decline; a technical failure has no decline reason.
  assert.deepEqual(failed.failure, {
    code: 'hard_decline', category: 'hard', message: 'The provider declined the payment.', declineReason: 'generic_decline',
  });
  const stolen = { id: 'att_3', attemptNumber: 3, providerName: 'X' } as AttemptRecord;
  const reason = { category: 'hard', code: 'card_lost_or_stolen', message: 'The card is reported stolen.', declineReason: 'stolen_card' } as const;
  recordAnswer(stolen, { result: { ...approved, outcome: 'hard_decline', fee: 0n, failure: reason }, latencyMs: 1 }, new Date(), []);
  assert.deepEqual(stolen.failure, reason);
  const fault = { id: 'att_4', attemptNumber: 4, providerName: 'X' } as AttemptRecord;
  recordAnswer(fault, { result: { ...approved, outcome: 'technical_error', fee: 0n }, latencyMs: 1 }, new Date(), []);
  assert.equal(fault.failure?.declineReason, undefined);
});
