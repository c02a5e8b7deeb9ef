// Mollie's chargebacks (https://docs.mollie.com/reference/chargebacks-api), read only: Mollie has
// no call to accept or contest one (the merchant answers in Mollie's dashboard), so the connector
// has no acceptDispute or submitDisputeEvidence and the API answers dispute_action_unsupported.
// Mollie's webhook only says a payment changed: its chargebacks come embedded in the payment the
// notification fetches (notifications.ts), and the sync lists the account's chargebacks.
import type { ProviderDispute, ProviderNotification, DisputeListRequest } from '../types.js';
import { fromMollieAmount } from './amounts.js';
import type { MollieClients } from './client.js';

/** A chargeback as Mollie shows it (embedded in a payment, or listed). */
export interface MollieChargeback {
  id?: string;
  amount?: { currency?: string; value?: string };
  createdAt?: string;
  reversedAt?: string | null;
  reason?: { code?: string; description?: string } | null;
  paymentId?: string;
}

/**
 * Chargebacks listed this long before the sync's moment are read again: Mollie's list has no
 * filter by change, and a chargeback is reversed weeks after it was made, if at all.
 */
const REVERSAL_LOOK_BACK_MS = 120 * 86_400_000;

/**
 * A chargeback as the contract's dispute: the amount is debited when Mollie records it, and back
 * when the chargeback is reversed (won). Until then it needs a response, which Mollie takes outside its API.
 */
export function chargebackOf(c: MollieChargeback, attemptId: string | null, fallbackAt: Date): { eventId: string; dispute: ProviderDispute } {
  const reversed = Boolean(c.reversedAt);
  const at = new Date((reversed ? c.reversedAt : c.createdAt) ?? '');
  const code = c.reason?.code;
  return {
    // The state is the key: the same chargeback read again (webhook or sync) is recorded once.
    eventId: `${c.id}:${reversed ? 'reversed' : 'charged_back'}`,
    dispute: {
      providerDisputeId: c.id ?? '',
      attemptId,
      providerPaymentId: c.paymentId ?? null,
      stage: 'chargeback',
      status: reversed ? 'won' : 'needs_response',
      // Mollie's reason codes are the banks' (SEPA's AC04, MD06, …; card schemes'): kept as they are.
      reason: code === 'MD06' || code === 'MS02' ? 'unrecognized' : 'general',
      providerReason: code ? [code, c.reason?.description].filter(Boolean).join(' ') : null,
      amount: fromMollieAmount(c.amount),
      currency: (c.amount?.currency ?? '').toUpperCase(),
      fundsWithdrawn: !reversed,
      occurredAt: Number.isNaN(at.getTime()) ? fallbackAt : at,
    },
  };
}

export function chargebackNotification(c: MollieChargeback, attemptId: string | null, fallbackAt: Date): ProviderNotification {
  const { eventId, dispute } = chargebackOf(c, attemptId, fallbackAt);
  return { eventId, occurredAt: dispute.occurredAt, subject: { kind: 'dispute', dispute } };
}

/** The account's chargebacks made since a while before `since` (newest first at Mollie), oldest first. */
export function createMollieDisputes(clients: MollieClients) {
  return {
    async listDisputes(req: DisputeListRequest): Promise<ProviderNotification[]> {
      const account = await clients.forAccount(req.account.id);
      if (!account) throw new Error('The account has no Mollie API key.');
      const oldest = req.since.getTime() - REVERSAL_LOOK_BACK_MS;
      const found: ProviderNotification[] = [];
      await account.call(req.signal, async (c) => {
        for await (const chb of c.chargebacks.iterate()) {
          const made = chb as unknown as MollieChargeback;
          if (new Date(made.createdAt ?? 0).getTime() < oldest) break;
          found.push(chargebackNotification(made, null, new Date()));
        }
      });
      return found.reverse();
    },
  };
}
