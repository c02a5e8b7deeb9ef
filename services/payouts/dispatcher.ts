import type { Logger } from '../platform/logger.js';
import type { Clock } from '../platform/clock.js';
import type { PoolClient } from '../platform/db.js';
import { abandonedAfterMs, withDeadline } from '../platform/deadline.js';
import type { Metrics } from '../platform/metrics.js';
import { PAYOUT_STATUSES } from '../contract/enums.js';
import { cost, type PayoutRecord } from './model.js';
import { emitPayout } from './payouts.js';
import { pollDelayMs } from './poll-schedule.js';
import { payoutConnectorFor, type PayoutConnector, type PayoutOutcome, type SendPayoutResult } from './providers.js';
import type { PayoutStore } from './store.js';

/**
 * Sends queued payouts once their hold (the cancellation window) has passed: claim them as
 * `pending` in one commit (a concurrent cancel either won before or now gets 409), call each
 * provider outside any transaction, then record the outcome with its event in a second commit.
 * Payouts do not fail over: a payout goes to the provider routing chose, and a failed one releases
 * its funds so the merchant can send a new one. An answer that never came (time-out, a connector
 * that throws) leaves the payout `processing` with its funds held, since the money may have left,
 * as does a provider's `pending` (accepted, not yet paid). Once it has waited abandonedAfterMs
 * (also a payout whose process died mid-call) its provider is asked what became of it, if the
 * connector can be asked; one the provider never received is sent again with the same payout id,
 * until the provider gives a definite answer. A provider's `pending` is asked again after growing
 * waits stored with the payout (poll-schedule.ts), a safety net: the provider's notification
 * (noted) usually decides it first, through the same transition. Licensed providers are reached
 * through payments.
 */

const FAILURES: Record<Exclude<PayoutOutcome, 'success' | 'timeout' | 'pending'>, NonNullable<PayoutRecord['failure']>> = {
  hard_decline: { code: 'hard_decline', category: 'hard', message: "The beneficiary's account refused the payout." },
  technical_error: { code: 'provider_error', category: 'technical', message: 'The provider reported a technical error; nothing was sent.' },
  provider_unavailable: { code: 'provider_unavailable', category: 'technical', message: 'The provider is unavailable; nothing was sent.' },
};

export interface DispatcherDeps {
  store: PayoutStore;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  /** Payout connectors by provider code that replace the built-in ones (tests' fakes). */
  connectors?: Record<string, PayoutConnector>;
  /** Every other provider's payouts: payments' ProviderPayoutsService (licensed-payouts.ts). */
  licensed?: PayoutConnector;
  batchSize?: number;
  /** Deadline of one call to a provider. */
  timeoutMs: number;
  /** Where payouts are counted by the status each provider answer moved them to; nowhere when absent. */
  metrics?: Metrics;
}

/** The decided change for a provider's answer (pure): status, failure, fee, and the event if any. */
export function outcomeOf(p: PayoutRecord, r: SendPayoutResult, at: Date): { release: bigint; event?: string } {
  p.updatedAt = at;
  // A status query that could not tell keeps the provider's id learnt before.
  p.providerPayoutId = r.providerPayoutId ?? p.providerPayoutId;
  if (r.outcome === 'success') {
    p.status = 'successful';
    p.sentAt = at;
    return { release: 0n, event: 'payout.successful' };
  }
  if (r.outcome === 'timeout' || r.outcome === 'pending') {
    p.status = 'processing';
    p.sentAt = p.sentAt ?? at;
    return { release: 0n };
  }
  // Nothing left the merchant's funds and the provider charges nothing for a refused payout.
  const release = cost(p);
  p.status = 'failed';
  p.failure = r.failure ?? FAILURES[r.outcome] ?? FAILURES.technical_error;
  p.feeAmount = 0n;
  return { release, event: 'payout.failed' };
}

/**
 * A payout its provider had paid fails afterwards (Stripe's payout.failed days after payout.paid:
 * the bank returned the money to the Stripe balance). Pure, like outcomeOf: failed with the
 * provider's failure, and its amount released; the fee stays charged, as a refund failed after
 * acceptance gives back its amount only, so the ledger's reversal (movements.ts) matches the funds.
 * Undefined for an answer that is no failure, which leaves a paid payout as it is.
 */
export function returnedOf(p: PayoutRecord, r: SendPayoutResult, at: Date): { release: bigint; event: string } | undefined {
  if (r.outcome === 'success' || r.outcome === 'timeout' || r.outcome === 'pending') return undefined;
  p.status = 'failed';
  p.failure = r.failure ?? FAILURES[r.outcome] ?? FAILURES.technical_error;
  p.providerPayoutId = r.providerPayoutId ?? p.providerPayoutId;
  p.updatedAt = at;
  return { release: p.amount, event: 'payout.failed' };
}

/** What a provider's notification did to the payout it names. */
export type NoteEffect =
  | { effect: 'applied' | 'confirmed' | 'ignored'; payout: PayoutRecord }
  | { effect: 'unmatched' };

export function createDispatcher(deps: DispatcherDeps) {
  const payoutStatuses = deps.metrics?.counter('svc_payouts_total', 'Payouts by the status a provider\'s answer moved them to', {
    status: PAYOUT_STATUSES,
  });
  const { store } = deps;
  const batchSize = deps.batchSize ?? 50;

  // A pending payout is first asked again after the wait that tells a lost answer (poll-schedule.ts).
  const firstPollMs = abandonedAfterMs(deps.timeoutMs);

  const UNKNOWN: SendPayoutResult = { outcome: 'timeout', providerPayoutId: null, providerCode: null, providerMessage: null };

  const requestOf = (p: PayoutRecord) => ({
    scope: { merchantId: p.merchantId, projectId: p.projectId, mode: p.mode },
    payoutId: p.id,
    providerCode: p.providerCode!,
    providerAccountId: p.providerAccountId!,
    amount: p.amount,
    currency: p.currency,
    destination: p.destination,
    description: p.description ?? undefined,
  });

  /** The provider's answer, or `timeout` when none came in time (a connector that throws included). */
  async function ask(p: PayoutRecord, call: (signal: AbortSignal) => Promise<SendPayoutResult>): Promise<SendPayoutResult> {
    try {
      return await withDeadline(deps.timeoutMs, call);
    } catch (err) {
      deps.logger.error({ err: (err as Error).message, payout_id: p.id }, 'payout outcome unknown');
      return UNKNOWN;
    }
  }

  async function send(p: PayoutRecord): Promise<SendPayoutResult> {
    const connector = payoutConnectorFor(p.providerCode ?? '', deps.connectors, deps.licensed);
    if (!connector) return { outcome: 'provider_unavailable', providerPayoutId: null, providerCode: null, providerMessage: null };
    return ask(p, (signal) => connector.send({ ...requestOf(p), signal, testScenario: p.testScenario ?? undefined }));
  }

  /**
   * A payout sent before whose outcome is still open: its provider is asked first; one it never
   * received is sent again (the same payout id, so never twice). A connector that cannot be asked
   * relies on its send being idempotent by the payout id.
   */
  async function resend(p: PayoutRecord): Promise<SendPayoutResult> {
    const connector = payoutConnectorFor(p.providerCode ?? '', deps.connectors, deps.licensed);
    if (!connector?.status) return send(p);
    let found = true;
    const known = await ask(p, async (signal) => {
      const answer = await connector.status!({ ...requestOf(p), providerPayoutId: p.providerPayoutId, signal });
      if (answer.found) return answer;
      found = false;
      return UNKNOWN;
    });
    return found ? known : send(p);
  }

  /**
   * The one transition of a sent payout by its provider's answer, whoever brought it (the send, a
   * status query, the provider's notification). Returns the status it found under the row lock:
   * one no longer open is final, and stays as it is, except a successful one its provider's
   * notification (`returns`) says failed afterwards (returnedOf).
   */
  async function record(claimed: PayoutRecord, result: SendPayoutResult, returns = false): Promise<PayoutRecord['status']> {
    const scope = { merchantId: claimed.merchantId, projectId: claimed.projectId, mode: claimed.mode };
    let moved: string | undefined;
    const found = await store.transaction(async (tx) => {
      const p = (await store.getForUpdate(tx, scope, claimed.id))!;
      const before = p.status;
      const at = deps.clock.now();
      // Only the provider's notification may fail a paid payout; the move away from successful,
      // made once under the row lock, is the guard against a replay.
      const change = returns && before === 'successful' ? returnedOf(p, result, at)
        // Settled meanwhile by a retry on another replica or a notification: that outcome stands, funds move once.
        : before === 'pending' || before === 'processing' ? outcomeOf(p, result, at) : undefined;
      if (!change) return before;
      const { release, event } = change;
      moved = p.status;
      await store.save(tx, p);
      if (result.outcome === 'pending') await store.schedulePoll(tx, p.id, at, (polls) => pollDelayMs(firstPollMs, polls));
      if (release > 0n) {
        await store.lockFunds(tx, scope, p.currency);
        await store.commitFunds(tx, p, -release);
      }
      if (event) await emitPayout(tx, p, event, at);
      return before;
    });
    // Counted once committed: a rolled-back answer is recorded again by its retry.
    if (moved) payoutStatuses?.inc({ status: moved });
    return found;
  }

  /**
   * A provider's notification about a payout of `accountId` (payouts' NoteProviderPayout): a final
   * answer goes through record, as a status query's would, and ends the polling; one that decides
   * nothing yet (pending) leaves the schedule as it is. A failure of a paid payout is applied too.
   */
  async function noted(accountId: string, payoutId: string | null, result: SendPayoutResult): Promise<NoteEffect> {
    const p = await store.findAtProvider(accountId, payoutId, result.providerPayoutId);
    if (!p) return { effect: 'unmatched' };
    const open = (status: string) => status === 'pending' || status === 'processing';
    if (result.outcome === 'pending' || result.outcome === 'timeout') return { effect: open(p.status) ? 'confirmed' : 'ignored', payout: p };
    const before = await record(p, result, true);
    if (open(before)) {
      deps.logger.info({ payout_id: p.id, outcome: result.outcome }, 'payout decided by its provider\'s notification');
      return { effect: 'applied', payout: p };
    }
    if (before === 'successful' && result.outcome !== 'success') {
      deps.logger.warn({ payout_id: p.id, outcome: result.outcome }, 'a paid payout failed afterwards: its funds are back');
      return { effect: 'applied', payout: p };
    }
    const agrees = before === (result.outcome === 'success' ? 'successful' : 'failed');
    // A failed payout stays failed: a later paid (out of order, or after the bank returned it) changes nothing.
    if (!agrees) deps.logger.warn({ payout_id: p.id, status: before, outcome: result.outcome }, 'payout notification ignored: the payout is final');
    return { effect: agrees ? 'confirmed' : 'ignored', payout: p };
  }

  /**
   * Sends every payout due at `asOf`, and again those whose answer is overdue; returns how many
   * were sent. Safe on many replicas at once.
   */
  async function dispatch(asOf: Date): Promise<number> {
    const staleBefore = new Date(asOf.getTime() - abandonedAfterMs(deps.timeoutMs));
    const overdue = await sendAll((tx) => store.claimStale(tx, staleBefore, asOf, batchSize), resend);
    return overdue + (await sendAll((tx) => store.claimDue(tx, asOf, batchSize), send));
  }

  /** Claims batch after batch and sends each, until a batch comes back short. */
  async function sendAll(
    claim: (tx: PoolClient) => Promise<PayoutRecord[]>, call: (p: PayoutRecord) => Promise<SendPayoutResult>,
  ): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await store.transaction(claim);
      await Promise.all(claimed.map(async (p) => { await record(p, await call(p)); }));
      if (claimed.length > 0) deps.relay.kick();
      total += claimed.length;
      if (claimed.length < batchSize) return total;
    }
  }

  return { dispatch, noted };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
