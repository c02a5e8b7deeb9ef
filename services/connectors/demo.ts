import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { feeFor } from '../contract/index.js';
import { PAYMENT_SCENARIOS, playFor, type Play } from './scenarios.js';
import { behaviourPlay, type DemoBehaviourSource } from './demo-behaviour.js';
import { withNetworkTransactionId } from './card-facts.js';
import type {
  AuthorizeRequest, AuthorizeResult, Connector, NextActionType, PaymentStatusResult, RefundRequest, RefundResult,
} from './types.js';

type Answer = Omit<AuthorizeResult, 'providerPaymentId' | 'fee'>;

// How a demo provider answers each play, with the codes a real provider would send.
const ANSWERS: Record<Exclude<Play, 'timeout_not_received' | 'timeout_approved'>, Answer> = {
  approve: { outcome: 'success', providerCode: 'approved', providerMessage: 'Approved' },
  soft_decline: {
    outcome: 'soft_decline', providerCode: 'do_not_honor', providerMessage: 'Declined by the issuer (do not honor)',
    failure: {
      category: 'soft', code: 'soft_decline', declineReason: 'do_not_honor',
      message: 'The provider declined the payment (do not honor); it may succeed elsewhere.',
    },
  },
  hard_decline: {
    outcome: 'hard_decline', providerCode: 'stolen_card', providerMessage: 'Declined: the card is reported stolen',
    failure: { category: 'hard', code: 'hard_decline', declineReason: 'stolen_card', message: 'The provider declined the payment: the card is reported stolen.' },
  },
  technical_error: {
    outcome: 'technical_error', providerCode: 'processing_error', providerMessage: 'The provider could not process the payment',
  },
  unavailable: {
    outcome: 'provider_unavailable', providerCode: 'service_unavailable', providerMessage: 'The provider is temporarily unavailable',
  },
};

/**
 * The demo providers' asynchronous rails: the customer finishes these payments on a page (the
 * sandbox hosted page), so where a synchronous rail would approve, the provider first asks for the
 * customer's action. Card, wallet, instant and local answer at once.
 */
const DEMO_ASYNC_RAILS: Readonly<Record<string, NextActionType>> = {
  open_banking: 'redirect',
  qr: 'qr_code',
  bank_transfer: 'display_details',
};

/**
 * The sandbox's demo providers: they move no money and answer as the test scenario says,
 * after the provider account's simulated latency. A scripted time-out is reported at once
 * rather than waited for, so the sandbox (and its tests) never sit out a real deadline.
 * Without a scenario, a project's demo behaviour for the payment's segment (demo-behaviour.ts)
 * draws the answer and adds its latency; with neither, they approve.
 */
export class DemoConnector implements Connector {
  /** Scenarios these providers can play; the orchestrator refuses any other before it starts. */
  static readonly scenarios: ReadonlySet<string> = new Set(PAYMENT_SCENARIOS.map((s) => s.name));

  constructor(private readonly behaviours?: DemoBehaviourSource) {}

  async authorize(req: AuthorizeRequest): Promise<AuthorizeResult> {
    const { play, latencyMs } = await this.plan(req);
    if (latencyMs > 0) await sleep(latencyMs, undefined, { signal: req.signal });
    if (play === 'timeout_not_received' || play === 'timeout_approved') {
      return { outcome: 'timeout', providerPaymentId: null, providerCode: null, providerMessage: null, fee: 0n };
    }
    return this.answer(req, ANSWERS[play]);
  }

  async getStatus(req: AuthorizeRequest): Promise<PaymentStatusResult> {
    const { play } = await this.plan(req);
    if (play === 'timeout_not_received') return { found: false };
    return { found: true, ...this.answer(req, ANSWERS[play === 'timeout_approved' ? 'approve' : play]) };
  }

  /** Refunds answer at once: the sandbox plays success, technical_error or hard_decline. */
  async refund(req: RefundRequest): Promise<RefundResult> {
    const a = refundAnswer(req.testScenario);
    return {
      ...a,
      providerRefundId: a.outcome === 'technical_error' ? null : demoRefundId(req),
    };
  }

  /** The scenario wins; else the project's behaviour for the segment; else the scenario-less play. */
  private async plan(req: AuthorizeRequest): Promise<{ play: Play; latencyMs: number }> {
    const scripted = { play: playFor(req.testScenario, req.attemptNumber), latencyMs: req.account.latencyMs };
    if (req.testScenario !== undefined || !req.sandbox || !this.behaviours) return scripted;
    const b = await this.behaviours.behaviourFor({
      projectId: req.sandbox.projectId, providerCode: req.account.providerCode, methodType: req.methodType,
      currency: req.currency, country: req.sandbox.country,
    });
    if (!b) return scripted;
    return { play: behaviourPlay(b, req.attemptId, this.behaviours.now()), latencyMs: req.account.latencyMs + b.latencyMs };
  }

  private answer(req: AuthorizeRequest, a: Answer): AuthorizeResult {
    const fee = feeFor(req.account, req.amount);
    const rail = DEMO_ASYNC_RAILS[req.methodType];
    if (a.outcome === 'success' && rail) {
      return {
        outcome: 'requires_action',
        providerCode: 'customer_action_required',
        providerMessage: 'Awaiting the customer on the hosted page',
        providerPaymentId: providerPaymentId(req),
        fee: 0n,
        customerAction: { type: rail, fee },
      };
    }
    const answered = a.outcome === 'success' || a.outcome === 'soft_decline' || a.outcome === 'hard_decline';
    const result = {
      ...a,
      // Derived from the attempt id, so a status query names the same payment authorize did.
      providerPaymentId: answered ? providerPaymentId(req) : null,
      fee: a.outcome === 'success' ? fee : 0n,
    };
    // A card payment answers a scheme id as a real network does, so the sandbox can make
    // merchant-initiated payments with the methods it was paid with.
    return req.methodType === 'card' ? withNetworkTransactionId(result, demoNetworkTransactionId(req)) : result;
  }
}

/** Fifteen digits, as Visa's Transaction ID, derived from the attempt id. */
function demoNetworkTransactionId(req: AuthorizeRequest): string {
  return BigInt(`0x${createHash('sha256').update(`ntid:${req.attemptId}`).digest('hex').slice(0, 15)}`).toString().slice(0, 15).padStart(15, '0');
}

function providerPaymentId(req: AuthorizeRequest): string {
  return demoPaymentId(req.account.providerCode, req.attemptId);
}

/** A demo provider's id of the payment an attempt made: derived, so any later step names the same one. */
export function demoPaymentId(providerCode: string, attemptId: string): string {
  return `${providerCode}_${createHash('sha256').update(attemptId).digest('hex').slice(0, 16)}`;
}

function refundAnswer(scenario: string | undefined): Omit<RefundResult, 'providerRefundId'> {
  switch (scenario) {
    case 'hard_decline':
      return { outcome: 'hard_decline', providerCode: 'refund_declined', providerMessage: 'Declined: the refund was refused' };
    case 'technical_error':
      return { outcome: 'technical_error', providerCode: 'processing_error', providerMessage: 'The provider could not process the refund' };
    default:
      return { outcome: 'success', providerCode: 'refunded', providerMessage: 'Refund accepted' };
  }
}

/** Derived from our refund id, as a provider would echo the reference it was sent. */
function demoRefundId(req: RefundRequest): string {
  return `${req.account.providerCode}_rf_${createHash('sha256').update(req.refundId).digest('hex').slice(0, 16)}`;
}
