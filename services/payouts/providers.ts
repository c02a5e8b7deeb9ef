import { createHash } from 'node:crypto';
import { DEMO_PROVIDERS, type PAYOUT_SCENARIOS as CONTRACT_PAYOUT_SCENARIOS, type ValueOf } from '../contract/enums.js';

/**
 * How payouts talks to a provider that sends money to a beneficiary. Licensed providers are
 * reached through payments (licensed-payouts.ts), which holds their credentials; the demo
 * providers below move no money and answer as the test scenario says, at once.
 */

/** `pending`: the provider accepted the payout and has not paid it yet; it is asked again later. */
export type PayoutOutcome = 'success' | 'pending' | 'hard_decline' | 'technical_error' | 'provider_unavailable' | 'timeout';

export interface SendPayoutRequest {
  /** The payout's merchant, project and mode: a licensed account is used only within them. */
  scope: { merchantId: string; projectId: string; mode: string };
  /**
   * Our payout id, sent as the provider-side reference. A payout whose answer was lost is sent
   * again with the same id, so a connector must make it idempotent by this reference: a second
   * call answers the first payout's outcome and never sends the money twice.
   */
  payoutId: string;
  providerCode: string;
  providerAccountId: string;
  amount: bigint;
  currency: string;
  destination: { type: string; token: string | null; holderName: string | null; country: string | null };
  description?: string;
  /** Sandbox only: one of PAYOUT_SCENARIOS below. */
  testScenario?: string;
  /** Aborted when the deadline passes; the payout is then sent again later with the same payoutId. */
  signal?: AbortSignal;
}

export interface SendPayoutResult {
  outcome: PayoutOutcome;
  providerPayoutId: string | null;
  providerCode: string | null;
  providerMessage: string | null;
  /** For a failed outcome: the connector's failure; without it the outcome's generic one. */
  failure?: { code: string; category: string; message: string };
}

/** A payout sent before, by the provider's payout id once known. */
export type PayoutStatusQuery = Omit<SendPayoutRequest, 'testScenario'> & { providerPayoutId: string | null };

/** found false: the provider never received it, so it is sent again (same payout id). */
export type PayoutStatusAnswer = { found: false } | ({ found: true } & SendPayoutResult);

export interface PayoutConnector {
  send(req: SendPayoutRequest): Promise<SendPayoutResult>;
  /** A provider that answers `pending`, or may lose an answer, tells later what became of a payout. */
  status?(req: PayoutStatusQuery): Promise<PayoutStatusAnswer>;
}

/** The scenarios the demo providers play on payouts, as the contract names them. */
export const PAYOUT_SCENARIOS = [
  { name: 'success', description: 'The provider sends the payout.' },
  { name: 'technical_error', description: 'The provider fails with a technical error; nothing is sent.' },
  { name: 'hard_decline', description: 'The beneficiary account refuses the payout (closed account).' },
  { name: 'unavailable', description: 'The provider is unavailable; nothing is sent.' },
  { name: 'timeout', description: 'The provider never answers: the payout stays processing, its funds held.' },
  {
    name: 'insufficient_funds',
    description: 'The provider refuses: the merchant\'s balance with it cannot cover the payout (failure code insufficient_funds). '
      + 'Without a scenario, a test payout larger than the test payments processed fails with this code at once.',
  },
] as const satisfies ReadonlyArray<{ name: ValueOf<typeof CONTRACT_PAYOUT_SCENARIOS>; description: string }>;

/** A payout its funds cannot cover: the demo provider's refusal, and the sandbox's own check (payouts.ts). */
export const INSUFFICIENT_FUNDS = {
  code: 'insufficient_funds', category: 'policy', message: 'The balance cannot cover this payout and its fee; nothing was sent.',
} as const;

export const PAYOUT_SCENARIO_NAMES: ReadonlySet<string> = new Set(PAYOUT_SCENARIOS.map((s) => s.name));

const ANSWERS: Record<string, Omit<SendPayoutResult, 'providerPayoutId'>> = {
  success: { outcome: 'success', providerCode: 'paid', providerMessage: 'Payout sent' },
  technical_error: {
    outcome: 'technical_error', providerCode: 'processing_error', providerMessage: 'The provider could not process the payout',
  },
  hard_decline: {
    outcome: 'hard_decline', providerCode: 'account_closed', providerMessage: 'Declined: the beneficiary account is closed',
  },
  unavailable: {
    outcome: 'provider_unavailable', providerCode: 'service_unavailable', providerMessage: 'The provider is temporarily unavailable',
  },
  timeout: { outcome: 'timeout', providerCode: null, providerMessage: null },
  insufficient_funds: {
    outcome: 'hard_decline', providerCode: 'insufficient_funds', providerMessage: 'Declined: insufficient funds for this payout',
    failure: INSUFFICIENT_FUNDS,
  },
};

export class DemoPayoutConnector implements PayoutConnector {
  async send(req: SendPayoutRequest): Promise<SendPayoutResult> {
    const answer = ANSWERS[req.testScenario ?? 'success'] ?? ANSWERS.success;
    const answered = answer.outcome === 'success' || answer.outcome === 'hard_decline';
    return {
      ...answer,
      // Derived from our payout id, as a provider echoes the reference it was sent.
      providerPayoutId: answered
        ? `${req.providerCode}_po_${createHash('sha256').update(req.payoutId).digest('hex').slice(0, 16)}`
        : null,
    };
  }
}

export const DEMO_PROVIDER_CODES: ReadonlySet<string> = new Set(DEMO_PROVIDERS);

/**
 * Connectors by provider code: ones installed by code (tests' fakes), the demo providers, then
 * `licensed` (payments' ProviderPayoutsService) for every other provider.
 */
export function payoutConnectorFor(
  providerCode: string, installed: Record<string, PayoutConnector> = {}, licensed?: PayoutConnector,
): PayoutConnector | undefined {
  return installed[providerCode] ?? (DEMO_PROVIDER_CODES.has(providerCode) ? new DemoPayoutConnector() : licensed);
}
