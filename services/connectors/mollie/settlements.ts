// Mollie's settlements (https://docs.mollie.com/reference/list-settlements): each is one transfer to
// the merchant's bank, with the payments, refunds and chargebacks it settles (GET
// /v2/settlements/{id}/payments, …/refunds: ours by the attempt and refund ids in their metadata;
// …/chargebacks: by the chargeback's and its payment's ids) and Mollie's costs per month and
// method in its `periods`. Amounts are the settlement's currency (`settlementAmount`, negative for refunds).
import type { MollieClient } from '@mollie/api-client';
import { fromMollieAmount } from './amounts.js';
import { metadataOf } from './outcomes.js';
import type { ProviderSettlement, ProviderSettlementItem } from '../types.js';

/** Mollie's settlement statuses: `open` is still collecting, `pending` being paid out, `paidout` done. */
const STATUS: Record<string, ProviderSettlement['status']> = {
  open: 'pending', pending: 'pending', paidout: 'settled', failed: 'failed',
};

type Amount = { currency?: string; value?: string } | null | undefined;

interface SettledEntity {
  id: string;
  amount?: Amount;
  settlementAmount?: Amount;
  metadata?: unknown;
  createdAt?: string;
}

interface SettledChargeback extends SettledEntity {
  paymentId?: string;
}

/**
 * A chargeback in a settlement (GET /v2/settlements/{id}/chargebacks): its `settlementAmount` is
 * negative, the disputed amount taken back; one listed with a positive amount gives it back (a
 * reversed chargeback), so the sign says which dispute movement it settles. Mollie's chargeback
 * fee is among the settlement's costs (`periods`), so the item carries none.
 */
function chargebackItem(c: SettledChargeback): ProviderSettlementItem {
  // The chargeback's own `amount` is positive: without a settlement amount it is a withdrawal.
  const amount = c.settlementAmount ? fromMollieAmount(c.settlementAmount) : -fromMollieAmount(c.amount);
  return {
    type: amount > 0n ? 'dispute_reversal' : 'dispute', providerReference: c.id, paymentReference: c.paymentId,
    amount, fee: 0n,
  };
}

interface MollieSettlement {
  id: string;
  reference?: string;
  createdAt: string;
  settledAt?: string | null;
  status: string;
  amount?: Amount;
  periods?: Record<string, Record<string, { costs?: Array<{ description?: string; method?: string; amountGross?: Amount }> }>>;
}

/** What one settlement settles, read from its payments' and refunds' lists and its periods' costs. */
async function settlementOf(client: MollieClient, st: MollieSettlement): Promise<ProviderSettlement> {
  const currency = st.amount?.currency ?? 'EUR';
  const s: ProviderSettlement = {
    reference: st.reference || st.id, currency, status: STATUS[st.status] ?? 'pending',
    periodStart: new Date(st.createdAt), periodEnd: new Date(st.createdAt),
    settledAt: st.settledAt ? new Date(st.settledAt) : null,
    settlementEntity: null, items: [], fees: [],
  };
  const times: number[] = [];
  const seen = (e: SettledEntity) => e.createdAt && times.push(new Date(e.createdAt).getTime());
  for await (const p of client.settlementPayments.iterate({ settlementId: st.id }) as AsyncIterable<SettledEntity>) {
    seen(p);
    s.items.push({
      type: 'payment', attemptId: metadataOf(p, 'attempt_id') ?? undefined, providerReference: p.id,
      amount: fromMollieAmount(p.settlementAmount ?? p.amount), fee: 0n,
    });
  }
  for await (const r of client.settlementRefunds.iterate({ settlementId: st.id }) as AsyncIterable<SettledEntity>) {
    seen(r);
    const amount = fromMollieAmount(r.settlementAmount ?? r.amount);
    s.items.push({ type: 'refund', refundId: metadataOf(r, 'refund_id') ?? undefined, providerReference: r.id, amount: amount > 0n ? -amount : amount, fee: 0n });
  }
  for await (const c of client.settlementChargebacks.iterate({ settlementId: st.id }) as AsyncIterable<SettledChargeback>) {
    seen(c);
    s.items.push(chargebackItem(c));
  }
  for (const months of Object.values(st.periods ?? {})) {
    for (const period of Object.values(months)) {
      for (const c of period.costs ?? []) {
        s.fees.push({ amount: fromMollieAmount(c.amountGross), description: `${c.method ?? 'costs'}: ${c.description ?? ''}`.trim() });
      }
    }
  }
  if (times.length > 0) {
    s.periodStart = new Date(Math.min(...times));
    s.periodEnd = new Date(Math.max(...times));
  }
  return s;
}

/**
 * The account's settlements created since `since` (all when undefined), oldest first. Mollie lists
 * newest first, so the listing stops at the first one older than `since`.
 */
export async function listMollieSettlements(client: MollieClient, since?: Date): Promise<ProviderSettlement[]> {
  const found: MollieSettlement[] = [];
  for await (const st of client.settlements.iterate() as AsyncIterable<MollieSettlement>) {
    if (since && new Date(st.createdAt) < since) break;
    found.push(st);
  }
  found.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const out: ProviderSettlement[] = [];
  for (const st of found) {
    const s = await settlementOf(client, st);
    if (s.items.length > 0 || s.fees.length > 0) out.push(s);
  }
  return out;
}
