import type { Clock } from '../../platform/clock.js';
import type { Pool, Queryable } from '../../platform/db.js';
import type { Logger } from '../../platform/logger.js';
import { fromConnectError, serviceError } from '../../contract/index.js';
import type { Connector, ConnectorRegistry, NotificationSubject, PayoutResult, ProviderNotification } from '../../connectors/index.js';
import { commitChange, type PaymentRecord, type PaymentsStore } from '../payments/index.js';
import type { ProviderChecks } from '../../connectors/provider-definition.js';
import type { CredentialStore } from '../provider-credentials/index.js';
import type { Refunds } from '../refunds/index.js';
import type { DisputeNotified } from './disputes.js';
import type { LateCharges } from '../late-charges/index.js';
import { decideHold, decidePayment, describeSubject, type Decision } from './decide.js';
import { ASK_WAIT_MS, createFetchGate } from './fetch-gate.js';
import { notificationQueries as q, type Applied, type Effect, type Found } from './store.js';

/**
 * A provider's delivery, from the gateway's bytes to its effect: the account's connector verifies
 * and reads it; each notification is then recorded (the provider's event id per account: a replay
 * finds its row and does nothing) and applied under the payment's row lock, both in one
 * transaction, so a crash between them loses nothing and applies nothing twice. The provider is
 * answered only after that commit: one that gets no answer sends again, and the replay is harmless.
 */

export interface ReceiveDeps {
  store: PaymentsStore;
  credentials: Pick<CredentialStore, 'describe'>;
  connectors: ConnectorRegistry;
  /** The providers' definitions by code: the name a timeline entry gives the provider. */
  providers: ReadonlyMap<string, Pick<ProviderChecks, 'name'>>;
  refunds: Pick<Refunds, 'notified'>;
  /** Applies a dispute notification to the dispute of the payment it names (disputes.ts). */
  disputes: DisputeNotified;
  /** Records a late success after failover and returns its charge (late-charges/). */
  lateCharges: Pick<LateCharges, 'record' | 'returnDue'>;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  /** Where hints are checked against the account's attempts and their fetches gated (fetch-gate.ts). */
  pool: Pool;
}

export interface Delivery {
  providerCode: string;
  providerAccountId: string;
  body: Buffer;
  headers: Record<string, string | undefined>;
}

export interface Received {
  acknowledgement: string;
  received: number;
  newNotifications: number;
  /** Payout notifications, replays included: a replay may follow a hand-on to payouts that failed. */
  payouts: PayoutNotice[];
}

export interface PayoutNotice {
  eventId: string;
  payoutId: string | null;
  result: PayoutResult;
}

/** What a hint answered without asking the provider gets: received, nothing new (yet). */
const NOTHING: Received = { acknowledgement: '', received: 0, newNotifications: 0, payouts: [] };

export function createReceiver(deps: ReceiveDeps) {
  const { store, clock } = deps;
  const gate = createFetchGate(deps.pool);

  /** Decides under the payment's row lock and writes the change, or only the narration when nothing changes. */
  async function decided(
    tx: Queryable, found: Found, decide: (payment: PaymentRecord) => Promise<Decision>,
  ): Promise<{ effect: Effect; lateCharge?: true }> {
    const payment = await store.getForUpdate(tx, found.scope, found.paymentId);
    if (!payment) return { effect: 'unmatched' };
    const d = await decide(payment);
    if (d.lateCharge) {
      // Once per attempt: a second notification of the same late success only confirms it.
      const recorded = await deps.lateCharges.record(tx, d.lateCharge.charge, clock.now());
      await store.addTimeline(tx, payment, recorded ? [d.entry, d.lateCharge.entry] : [d.entry], clock.now());
      return recorded ? { effect: 'applied', lateCharge: true } : { effect: 'confirmed' };
    }
    if (d.change) await commitChange(store, d.change, { tx });
    else await store.addTimeline(tx, payment, [d.entry], clock.now());
    return { effect: d.effect };
  }

  /** Applies one new notification in `tx`; returns its effect and what it touched. */
  async function apply(
    tx: Queryable, accountId: string, providerCode: string, provider: string, n: ProviderNotification,
  ): Promise<Applied> {
    const s: NotificationSubject = n.subject;
    const at = clock.now();
    const notified = { eventId: n.eventId, provider };
    if (s.kind === 'ignored') return { effect: 'ignored' };
    if (s.kind === 'payout') return { effect: 'forwarded' };
    if (s.kind === 'dispute') return deps.disputes(tx, { id: accountId, providerCode }, s.dispute);
    if (s.kind === 'refund') {
      const found = await q.refund(tx, accountId, s.refundId, s.providerRefundId);
      if (!found) return { effect: 'unmatched' };
      const payment = await store.getForUpdate(tx, found.scope, found.paymentId);
      if (!payment) return { effect: 'unmatched' };
      const effect = await deps.refunds.notified(tx, payment, found.id, s.result, at);
      const { subject, outcome } = describeSubject(s);
      // Narrated after the refund's own entries (when it changed), naming what it did.
      await store.addTimeline(tx, payment, [{
        type: 'provider.notification', title: `${provider} notification: refund ${outcome} (${effect})`,
        data: { event_id: n.eventId, provider, subject, outcome, effect, status: payment.status, refund_id: found.id },
      }], at);
      return { effect, paymentId: found.paymentId, refundId: found.id };
    }
    const found = await q.attempt(tx, accountId, s.kind === 'payment' ? s.attemptId : null, s.providerPaymentId);
    if (!found) return { effect: 'unmatched' };
    const outcome = await decided(tx, found, async (payment) => {
      if (s.kind !== 'payment') return decideHold(payment, s.kind, s.result, at, notified);
      const action = await store.openCustomerAction(tx, payment.id);
      return decidePayment(payment, found.id, s.result, action, at, notified);
    });
    return { ...outcome, paymentId: found.paymentId };
  }

  /**
   * Records and applies verified notifications of one account, each in its own transaction (a
   * replay finds its row and does nothing); how many were new, and how many of those changed
   * something. The webhook route's and the dispute sync's one way in.
   */
  async function take(providerCode: string, accountId: string, notifications: ProviderNotification[]): Promise<{ fresh: number; applied: number }> {
    const provider = deps.providers.get(providerCode)?.name ?? providerCode;
    let fresh = 0;
    let applied = 0;
    let lateCharged = false;
    for (const n of notifications) {
      const outcome = await store.transaction(async (tx) => {
        const receivedAt = clock.now();
        const recorded = await q.record(tx, {
          providerAccountId: accountId, eventId: n.eventId, providerCode,
          subject: n.subject.kind, occurredAt: n.occurredAt, receivedAt,
        });
        if (!recorded) return undefined;
        const applied = await apply(tx, accountId, providerCode, provider, n);
        await q.setEffect(tx, accountId, n.eventId, applied.effect, applied);
        return applied;
      });
      if (!outcome) continue;
      fresh++;
      if (outcome.effect === 'applied') applied++;
      if (outcome.lateCharge) lateCharged = true;
      // Ignored by the rule, yet the provider disagrees with what we recorded (a capture failure after the
      // capture, a decline after a success, a success after a failure or an expiry), or a dispute about a
      // payment not routed here: worth an operator's look. A dispute's older view arriving late is routine.
      const disagrees = n.subject.kind === 'dispute'
        ? outcome.effect === 'unmatched'
        : outcome.effect === 'ignored' && n.subject.kind !== 'ignored';
      deps.logger[disagrees ? 'warn' : 'info']({
        providerAccountId: accountId, eventId: n.eventId, subject: n.subject.kind, effect: outcome.effect,
        paymentId: outcome.paymentId, refundId: outcome.refundId, disputeId: outcome.disputeId, note: outcome.note,
      }, 'provider notification');
    }
    if (fresh > 0) deps.relay.kick();
    if (lateCharged) {
      // Not awaited: the provider's delivery is answered now; reconciliation repeats what this misses.
      deps.lateCharges.returnDue().catch((err) => deps.logger.warn({ err: (err as Error).message }, 'late charge: return will be retried'));
    }
    return { fresh, applied };
  }

  /** The connector that reads the account's notifications; 404 for an account that is not this provider's. */
  async function connectorFor(d: Pick<Delivery, 'providerCode' | 'providerAccountId'>): Promise<Connector & Required<Pick<Connector, 'readNotification'>>> {
    const account = await deps.credentials.describe(d.providerAccountId);
    const connector = deps.connectors.forProvider(d.providerCode);
    if (!account || account.providerCode !== d.providerCode || !connector?.readNotification) {
      throw serviceError('resource_not_found', `No ${d.providerCode} account ${d.providerAccountId} takes notifications here.`, {
        param: 'provider_account_id',
      });
    }
    return connector as Connector & Required<Pick<Connector, 'readNotification'>>;
  }

  /**
   * 404 for an account that is not this provider's; 400 invalid_signature for a refused delivery.
   * A hint (Mollie's unsigned id) naming none of the account's payments, or within its id's window
   * or beyond the account's fetches per second, is answered without asking the provider; a delivery
   * the provider is asked to verify (PayPal's) beyond that budget is a 429 (fetch-gate.ts).
   */
  async function receive(d: Delivery): Promise<Received> {
    const connector = await connectorFor(d);
    if (connector.notificationAsksProvider && !(await gate.spend(d.providerAccountId, ASK_WAIT_MS))) {
      throw serviceError('rate_limited', 'Too many notifications for this account this second; deliver it again later.');
    }
    const hinted = connector.notificationHint?.paymentIdOf(d.body);
    if (hinted !== undefined) {
      const ours = await q.attempt(deps.pool, d.providerAccountId, null, hinted);
      if (!ours || (await gate.admit(d.providerAccountId, d.providerCode, hinted)) === 'waiting') return NOTHING;
    }
    return read(connector, d);
  }

  /** Reads the ids whose posts waited out their window (fetch-gate.ts), each once; how many were read. */
  async function followUp(limit: number): Promise<number> {
    const due = await gate.takeFollowUps(limit);
    for (const f of due) {
      try {
        const connector = await connectorFor(f);
        if (!connector.notificationHint) continue;
        await read(connector, {
          providerCode: f.providerCode, providerAccountId: f.providerAccountId, headers: {},
          body: connector.notificationHint.bodyFor(f.providerPaymentId),
        });
      } catch (err) {
        // The provider unreachable: read again after another window. Anything else (the account gone,
        // its key removed) would fail the same way again: dropped, as a refused post is.
        const again = fromConnectError(err).code === 'provider_unavailable';
        deps.logger.warn({ providerAccountId: f.providerAccountId, err: (err as Error).message, again }, 'provider notification follow-up failed');
        if (again) await gate.retryLater(f);
      }
    }
    return due.length;
  }

  /** Has the account's connector verify and read the delivery, then records and applies what it says. */
  async function read(connector: Required<Pick<Connector, 'readNotification'>>, d: Delivery): Promise<Received> {
    const check = await connector.readNotification({
      account: { providerCode: d.providerCode, id: d.providerAccountId }, rawBody: d.body, headers: d.headers,
    });
    if (!check.ok) {
      // The connector's reason is its own words: it never quotes the secret, the signature or the body.
      deps.logger.warn({ providerAccountId: d.providerAccountId, provider: d.providerCode, reason: check.reason }, 'provider notification refused');
      throw serviceError('invalid_signature', `The notification was refused: ${check.reason}`);
    }
    const payouts: PayoutNotice[] = check.notifications.flatMap((n) => (n.subject.kind === 'payout'
      ? [{ eventId: n.eventId, payoutId: n.subject.payoutId, result: { ...n.subject.result, providerPayoutId: n.subject.providerPayoutId } }]
      : []));
    const { fresh } = await take(d.providerCode, d.providerAccountId, check.notifications);
    return { acknowledgement: check.acknowledgement ?? '', received: check.notifications.length, newNotifications: fresh, payouts };
  }

  return { receive, followUp, take };
}

export type Receiver = ReturnType<typeof createReceiver>;
