import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthorizeRequest, AuthorizeResult, Connector } from './types.js';

/**
 * The sandbox's demo providers: they move no money and answer as the test scenario says,
 * after the provider account's simulated latency.
 */
export class DemoConnector implements Connector {
  /** Scenarios these providers can play; the orchestrator refuses any other before it starts. */
  static readonly scenarios: ReadonlySet<string> = new Set(['success']);

  async authorize(req: AuthorizeRequest): Promise<AuthorizeResult> {
    if (req.candidate.latencyMs > 0) await sleep(req.candidate.latencyMs);
    const fee = req.candidate.feeFixed + (req.amount * BigInt(req.candidate.feeBps)) / 10_000n;
    return {
      outcome: 'success',
      providerPaymentId: `${req.candidate.providerCode}_${randomBytes(8).toString('hex')}`,
      providerCode: 'approved',
      providerMessage: 'Approved',
      fee,
    };
  }
}
