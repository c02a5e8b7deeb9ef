import type { Clock, Logger, Queryable } from '../../platform/index.js';
import { serviceError } from '../../contract/index.js';
import type { ConnectorRegistry, NotificationSubject, PayoutResult, ProviderNotification } from '../connectors/index.js';
import { commitChange, type PaymentRecord, type PaymentsStore } from '../payments/index.js';
import type { ProviderDefinition } from '../connectors/provider-definition.js';
import type { CredentialStore } from '../provider-credentials/index.js';
import type { Refunds } from '../refunds/index.js';
import type { LateCharges } from '../late-charges/index.js';
import { decideHold, decidePayment, describeSubject, type Decision } from './decide.js';
import { notificationQueries as q, type Effect, type Found } from './store.js';

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
  providers: ReadonlyMap<string, Pick<ProviderDefinition, 'name'>>;
  refunds: Pick<Refunds, 'notified'>;
  lateCharges: Pick<LateCharges, 'record' | 'returnDue'>;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
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

export function createReceiver(deps: ReceiveDeps) {
  const { store, clock } = deps;

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
    tx: Queryable, accountId: string, provider: string, n: ProviderNotification,
  ): Promise<{ effect: Effect; paymentId?: string; refundId?: string; lateCharge?: true }> {
    const s: NotificationSubject = n.subject;
    const at = clock.now();
    const notified = { eventId: n.eventId, provider };
    if (s.kind === 'ignored') return { effect: 'ignored' };
    if (s.kind === 'payout') return { effect: 'forwarded' };
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

  /** 404 for an account that is not this provider's; 400 invalid_signature for a refused delivery. */
  async function receive(d: Delivery): Promise<Received> {
    const account = await deps.credentials.describe(d.providerAccountId);
    const connector = deps.connectors.forProvider(d.providerCode);
    if (!account || account.providerCode !== d.providerCode || !connector?.readNotification) {
      throw serviceError('resource_not_found', `No ${d.providerCode} account ${d.providerAccountId} takes notifications here.`, {
        param: 'provider_account_id',
      });
    }
    const check = await connector.readNotification({
      account: { providerCode: d.providerCode, id: d.providerAccountId }, rawBody: d.body, headers: d.headers,
    });
    if (!check.ok) {
      // The connector's reason is its own words: it never quotes the secret, the signature or the body.
      deps.logger.warn({ providerAccountId: d.providerAccountId, provider: d.providerCode, reason: check.reason }, 'provider notification refused');
      throw serviceError('invalid_signature', `The notification was refused: ${check.reason}`);
    }
    const provider = deps.providers.get(d.providerCode)?.name ?? d.providerCode;
    let fresh = 0;
    let lateCharged = false;
    const payouts: PayoutNotice[] = [];
    for (const n of check.notifications) {
      const s = n.subject;
      if (s.kind === 'payout') payouts.push({ eventId: n.eventId, payoutId: s.payoutId, result: { ...s.result, providerPayoutId: s.providerPayoutId } });
      const outcome = await store.transaction(async (tx) => {
        const receivedAt = clock.now();
        const recorded = await q.record(tx, {
          providerAccountId: d.providerAccountId, eventId: n.eventId, providerCode: d.providerCode,
          subject: n.subject.kind, occurredAt: n.occurredAt, receivedAt,
        });
        if (!recorded) return undefined;
        const applied = await apply(tx, d.providerAccountId, provider, n);
        await q.setEffect(tx, d.providerAccountId, n.eventId, applied.effect, applied);
        return applied;
      });
      if (!outcome) continue;
      fresh++;
      if (outcome.lateCharge) lateCharged = true;
      // Ignored by the rule, yet the provider disagrees with what we recorded (a capture failure after the
      // capture, a decline after a success, a success after a failure or an expiry): worth an operator's look.
      const disagrees = outcome.effect === 'ignored' && n.subject.kind !== 'ignored';
      deps.logger[disagrees ? 'warn' : 'info']({
        providerAccountId: d.providerAccountId, eventId: n.eventId, subject: n.subject.kind, effect: outcome.effect,
        paymentId: outcome.paymentId, refundId: outcome.refundId,
      }, 'provider notification');
    }
    if (fresh > 0) deps.relay.kick();
    if (lateCharged) {
      // Not awaited: the provider's delivery is answered now; reconciliation repeats what this misses.
      deps.lateCharges.returnDue().catch((err) => deps.logger.warn({ err: (err as Error).message }, 'late charge: return will be retried'));
    }
    return { acknowledgement: check.acknowledgement ?? '', received: check.notifications.length, newNotifications: fresh, payouts };
  }

  return { receive };
}

export type Receiver = ReturnType<typeof createReceiver>;
