import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Clock } from '../../platform/clock.js';
import { abandonedAfterMs } from '../../platform/deadline.js';
import { every } from '../../platform/every.js';
import type { Logger } from '../../platform/logger.js';
import {
  attemptCredential, type AttemptRecord, commitChange, type CredentialSources, keptNetworkTransactionId, type PaymentsStore,
  providerCall, queryStatus, settleLate,
} from '../payments/index.js';
import type { ConnectorRegistry } from '../../connectors/index.js';
import type { Refunds } from '../refunds/index.js';
import type { LateCharges } from '../late-charges/index.js';
import { settleDueProviderAction } from './provider-actions.js';

/**
 * Settles attempts whose outcome stayed open, so no payment waits in `processing` forever and no
 * charge goes unrecorded: those the provider could not tell about (`unknown`), and those still in
 * flight long after their request ended (the payments process died mid-call). Each is asked about
 * again with the attempt's own reference, and with the token (or vault route) it was sent when the
 * payment's method is stored: never received fails the payment (nobody was charged);
 * a definite answer completes or fails it with its events; no answer yet waits for the next round.
 * A reconciled payment never fails over: its request is long gone, and the merchant decides.
 * Each round also re-sends the refunds whose answer was lost (refunds/refunds.ts, retryInFlight),
 * and asks the provider about live payments whose customer action on the provider's page expired
 * with no notification (provider-actions.ts): completed as the provider says, or released there
 * and expired.
 *
 * Every replica runs it. The provider is asked outside any transaction; the change is then made
 * under the payment's row lock and only if the attempt is still open, so two replicas never apply
 * two outcomes. An attempt in flight is left alone until no request can still be waiting on it
 * (abandonedAfterMs).
 */

export interface ReconciliationDeps {
  store: PaymentsStore;
  connectors: ConnectorRegistry;
  refunds: Pick<Refunds, 'retryInFlight'>;
  /** Late charges still to return (late-charges/): sent again each round until the provider answers. */
  lateCharges?: Pick<LateCharges, 'returnDue'>;
  /** Where a stored method's token is found again, so the provider is asked with what the attempt was sent. */
  credentials?: CredentialSources;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  intervalMs: number;
  providerTimeoutMs: number;
  batchSize?: number;
}

const OPEN_STATUSES = new Set(['created', 'pending', 'processing']);

export function createReconciliation(deps: ReconciliationDeps) {
  const { store, clock } = deps;
  const batchSize = deps.batchSize ?? 50;
  const openSinceMs = abandonedAfterMs(deps.providerTimeoutMs);
  // Set by stop() only: a direct call (a test, an operator) still goes through the whole batch.
  let closing = false;

  function isOpen(a: AttemptRecord | undefined, inFlightBefore: Date): a is AttemptRecord {
    return !!a && (a.status === 'unknown' || (a.status === 'processing' && a.outcome === null && a.updatedAt < inFlightBefore));
  }

  async function reconcileOne(scope: Scope, paymentId: string, attemptId: string, inFlightBefore: Date): Promise<boolean> {
    const before = await store.get(scope, paymentId);
    const attempt = before?.attempts.find((a) => a.id === attemptId);
    if (!before || !isOpen(attempt, inFlightBefore)) return false;
    const connector = deps.connectors.forProvider(attempt.providerCode);
    if (!connector) return false;
    const sent = deps.credentials ? await attemptCredential(deps.credentials, scope, before, attempt) : {};
    const answer = await queryStatus(connector, providerCall(before, attempt, sent), deps.providerTimeoutMs, attempt.status === 'unknown'
      ? 'The provider could not tell the outcome when the payment was made.'
      : 'The request that made this attempt ended before the provider answered.');

    const changed = await store.transaction(async (tx) => {
      const payment = await store.getForUpdate(tx, scope, paymentId);
      const locked = payment?.attempts.find((a) => a.id === attemptId);
      if (!payment || !OPEN_STATUSES.has(payment.status) || !isOpen(locked, inFlightBefore)) return false;
      const change = settleLate(payment, locked, answer, clock.now());
      if (!change) return false;
      // A customer-present payment settled here keeps its network transaction id as one settled by its request does.
      const also = deps.credentials ? keptNetworkTransactionId(deps.credentials.paymentMethods, scope, payment, answer.result) : [];
      await commitChange(store, change, { tx, also });
      return true;
    });
    if (changed) deps.relay.kick();
    return changed;
  }

  /** Asks about every open attempt and refund once; returns how many payments and refunds it settled. */
  async function reconcile(now: Date = clock.now()): Promise<number> {
    const inFlightBefore = new Date(now.getTime() - openSinceMs);
    const open = await store.openAttempts(inFlightBefore, batchSize);
    let settled = await deps.refunds.retryInFlight(inFlightBefore, batchSize);
    if (deps.lateCharges) settled += await deps.lateCharges.returnDue(batchSize);
    for (const o of open) {
      if (closing) break;
      try {
        if (await reconcileOne(o.scope, o.paymentId, o.attemptId, inFlightBefore)) settled++;
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message, paymentId: o.paymentId }, 'reconciliation: attempt not settled, will retry');
      }
    }
    for (const due of await store.dueProviderActions(now, batchSize)) {
      if (closing) break;
      try {
        if (await settleDueProviderAction(deps, due)) settled++;
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message, paymentId: due.paymentId }, 'reconciliation: expired provider action not settled, will retry');
      }
    }
    if (settled > 0) deps.relay.kick();
    return settled;
  }

  const loop = every(deps.intervalMs, 'reconciliation', deps.logger, async () => {
    const n = await reconcile();
    if (n > 0) deps.logger.info({ settled: n }, 'reconciliation: settled open attempts and refunds');
  });

  return {
    reconcile,
    start(): void {
      closing = false;
      loop.start();
    },
    async stop(): Promise<void> {
      closing = true;
      await loop.stop();
    },
  };
}
