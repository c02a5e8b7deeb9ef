import type { Logger } from '../shared/index.js';
import { abandonedAfterMs, withDeadline, type Clock, type PoolClient } from '../shared/index.js';
import { cost, type PayoutRecord } from './model.js';
import { emitPayout } from './payouts.js';
import { payoutConnectorFor, type PayoutConnector, type PayoutOutcome, type SendPayoutResult } from './providers.js';
import type { PayoutStore } from './store.js';

/**
 * Sends queued payouts once their hold (the cancellation window) has passed: claim them as
 * `pending` in one commit (a concurrent cancel either won before or now gets 409), call each
 * provider outside any transaction, then record the outcome with its event in a second commit.
 * Payouts do not fail over: a payout goes to the provider routing chose, and a failed one releases
 * its funds so the merchant can send a new one. An answer that never came (time-out, a connector
 * that throws) leaves the payout `processing` with its funds held, since the money may have left;
 * it is sent again, with the same payout id, once it has waited abandonedAfterMs (also a payout
 * whose process died mid-call), until the provider gives a definite answer.
 */

const FAILURES: Record<Exclude<PayoutOutcome, 'success' | 'timeout'>, NonNullable<PayoutRecord['failure']>> = {
  hard_decline: { code: 'hard_decline', category: 'hard', message: "The beneficiary's account refused the payout." },
  technical_error: { code: 'provider_error', category: 'technical', message: 'The provider reported a technical error; nothing was sent.' },
  provider_unavailable: { code: 'provider_unavailable', category: 'technical', message: 'The provider is unavailable; nothing was sent.' },
};

export interface DispatcherDeps {
  store: PayoutStore;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  /** Licensed providers' payout connectors by provider code; the demo providers are built in. */
  connectors?: Record<string, PayoutConnector>;
  batchSize?: number;
  /** Deadline of one call to a provider. */
  timeoutMs: number;
}

/** The decided change for a provider's answer (pure): status, failure, fee, and the event if any. */
export function outcomeOf(p: PayoutRecord, r: SendPayoutResult, at: Date): { release: bigint; event?: string } {
  p.updatedAt = at;
  p.providerPayoutId = r.providerPayoutId;
  if (r.outcome === 'success') {
    p.status = 'successful';
    p.sentAt = at;
    return { release: 0n, event: 'payout.successful' };
  }
  if (r.outcome === 'timeout') {
    p.status = 'processing';
    p.sentAt = at;
    return { release: 0n };
  }
  // Nothing left the merchant's funds and the provider charges nothing for a refused payout.
  const release = cost(p);
  p.status = 'failed';
  p.failure = FAILURES[r.outcome] ?? FAILURES.technical_error;
  p.feeAmount = 0n;
  return { release, event: 'payout.failed' };
}

export function createDispatcher(deps: DispatcherDeps) {
  const { store } = deps;
  const batchSize = deps.batchSize ?? 50;

  async function send(p: PayoutRecord): Promise<SendPayoutResult> {
    const connector = payoutConnectorFor(p.providerCode ?? '', deps.connectors);
    if (!connector) return { outcome: 'provider_unavailable', providerPayoutId: null, providerCode: null, providerMessage: null };
    try {
      return await withDeadline(deps.timeoutMs, (signal) => connector.send({
        signal,
        payoutId: p.id,
        providerCode: p.providerCode!,
        providerAccountId: p.providerAccountId!,
        amount: p.amount,
        currency: p.currency,
        destination: p.destination,
        testScenario: p.testScenario ?? undefined,
      }));
    } catch (err) {
      deps.logger.error({ err: (err as Error).message, payout_id: p.id }, 'payout outcome unknown');
      return { outcome: 'timeout', providerPayoutId: null, providerCode: null, providerMessage: null };
    }
  }

  async function record(claimed: PayoutRecord, result: SendPayoutResult): Promise<void> {
    const scope = { merchantId: claimed.merchantId, projectId: claimed.projectId, mode: claimed.mode };
    await store.transaction(async (tx) => {
      const p = (await store.getForUpdate(tx, scope, claimed.id))!;
      // Settled meanwhile by a retry on another replica: that outcome stands, funds move once.
      if (p.status !== 'pending' && p.status !== 'processing') return;
      const at = deps.clock.now();
      const { release, event } = outcomeOf(p, result, at);
      await store.save(tx, p);
      if (release > 0n) {
        await store.lockFunds(tx, scope, p.currency);
        await store.commitFunds(tx, p, -release);
      }
      if (event) await emitPayout(tx, p, event, at);
    });
  }

  /**
   * Sends every payout due at `asOf`, and again those whose answer is overdue; returns how many
   * were sent. Safe on many replicas at once.
   */
  async function dispatch(asOf: Date): Promise<number> {
    const staleBefore = new Date(asOf.getTime() - abandonedAfterMs(deps.timeoutMs));
    const overdue = await sendAll((tx) => store.claimStale(tx, staleBefore, asOf, batchSize));
    return overdue + (await sendAll((tx) => store.claimDue(tx, asOf, batchSize)));
  }

  /** Claims batch after batch and sends each, until a batch comes back short. */
  async function sendAll(claim: (tx: PoolClient) => Promise<PayoutRecord[]>): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await store.transaction(claim);
      await Promise.all(claimed.map(async (p) => record(p, await send(p))));
      if (claimed.length > 0) deps.relay.kick();
      total += claimed.length;
      if (claimed.length < batchSize) return total;
    }
  }

  return { dispatch };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
