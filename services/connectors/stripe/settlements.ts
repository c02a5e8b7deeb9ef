// Stripe's settlements: each payout to the merchant's bank is one batch, and its balance
// transactions (GET /v1/balance_transactions?payout=po_…&expand[]=data.source) are what it settles:
// charges (by their PaymentIntent), refunds (by our refund id in their metadata), failed refunds'
// amounts given back (refund_failure, by the same refund), disputes' withdrawals and reinstatements
// (adjustments reported as dispute / dispute_reversal, by the dispute) and Stripe's own costs. https://docs.stripe.com/api/payouts/list, https://docs.stripe.com/api/balance_transactions/list
import type Stripe from 'stripe';
import { fromStripeAmount } from './amounts.js';
import type { ProviderSettlement, ProviderSettlementItem } from '../types.js';

const STATUS: Record<string, ProviderSettlement['status']> = {
  paid: 'settled', pending: 'pending', in_transit: 'pending', failed: 'failed', canceled: 'failed',
};

const PAYMENT_TYPES = new Set(['charge', 'payment']);
const REFUND_TYPES = new Set(['refund', 'payment_refund']);
/** The reporting categories of a dispute's balance transactions: https://docs.stripe.com/reports/reporting-categories */
const DISPUTE_CATEGORIES: ReadonlySet<string> = new Set(['dispute', 'dispute_reversal']);

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : v?.id);

/** One balance transaction of a payout into the settlement (the payout's own transaction is not settled by it). */
function add(s: ProviderSettlement, bt: Stripe.BalanceTransaction, payoutId: string): void {
  if (bt.type === 'payout' || idOf(bt.source as { id: string } | null) === payoutId) return;
  const amount = fromStripeAmount(bt.amount, s.currency);
  const fee = fromStripeAmount(bt.fee, s.currency);
  if (PAYMENT_TYPES.has(bt.type)) {
    const charge = bt.source as Stripe.Charge | null;
    const ref = idOf(charge?.payment_intent) ?? charge?.id;
    s.items.push({ type: 'payment', providerReference: ref, amount, fee });
  } else if (REFUND_TYPES.has(bt.type) || bt.type === 'refund_failure') {
    // A refund_failure's source is the refund that failed: it settles the ledger's reversal of it.
    const refund = bt.source as Stripe.Refund | null;
    const type = bt.type === 'refund_failure' ? 'refund_reversal' : 'refund';
    s.items.push({ type, refundId: refund?.metadata?.refund_id || undefined, providerReference: refund?.id, amount, fee });
  } else if (bt.type === 'adjustment' && DISPUTE_CATEGORIES.has(bt.reporting_category)) {
    s.items.push(disputeItem(bt, amount, fee));
  } else {
    // Stripe's own costs and anything else on the payout count as costs of the batch (docs/connectors.md).
    s.fees.push({ amount: fee - amount, description: `${bt.type}: ${bt.description ?? bt.id}` });
  }
}

/**
 * A dispute's money on the balance: an `adjustment` whose reporting category is `dispute` (the
 * disputed amount withdrawn, its `fee` Stripe's dispute fee) or `dispute_reversal` (reinstated once
 * the dispute is won), its source the dispute (`dp_…`, or `du_…` for a closed inquiry's). It settles
 * the ledger's movement of that dispute, found by the dispute's id or its PaymentIntent.
 */
function disputeItem(bt: Stripe.BalanceTransaction, amount: bigint, fee: bigint): ProviderSettlementItem {
  const dispute = bt.source as Stripe.Dispute | string | null;
  const id = idOf(dispute as { id: string } | string | null);
  const paid = typeof dispute === 'object' && dispute ? idOf(dispute.payment_intent) ?? idOf(dispute.charge) : undefined;
  const type = bt.reporting_category === 'dispute' ? 'dispute' : 'dispute_reversal';
  return { type, providerReference: id, paymentReference: paid, amount, fee };
}

async function settlementOf(client: Stripe, po: Stripe.Payout): Promise<ProviderSettlement> {
  const currency = po.currency.toUpperCase();
  const s: ProviderSettlement = {
    reference: po.id, currency, status: STATUS[po.status] ?? 'pending',
    periodStart: new Date(po.created * 1000), periodEnd: new Date(po.created * 1000),
    settledAt: po.status === 'paid' ? new Date(po.arrival_date * 1000) : null,
    settlementEntity: null, items: [], fees: [],
  };
  const times: number[] = [];
  for await (const bt of client.balanceTransactions.list({ payout: po.id, limit: 100, expand: ['data.source'] })) {
    add(s, bt, po.id);
    if (bt.type !== 'payout') times.push(bt.created * 1000);
  }
  if (times.length > 0) {
    s.periodStart = new Date(Math.min(...times));
    s.periodEnd = new Date(Math.max(...times));
  }
  return s;
}

/**
 * The account's automatic payouts created since `since` (all when undefined), oldest first, each with
 * what it settles. Manual payouts (the ones our payouts part sends to beneficiaries) settle nothing:
 * Stripe ties balance transactions to automatic payouts only, so they are left out, as is a payout
 * whose listing holds nothing but itself.
 */
export async function listStripeSettlements(client: Stripe, since?: Date): Promise<ProviderSettlement[]> {
  const payouts: Stripe.Payout[] = [];
  const created = since ? { created: { gte: Math.floor(since.getTime() / 1000) } } : {};
  for await (const po of client.payouts.list({ limit: 100, ...created })) if (po.automatic) payouts.push(po);
  payouts.sort((a, b) => a.created - b.created || a.id.localeCompare(b.id));
  const out: ProviderSettlement[] = [];
  for (const po of payouts) {
    const s = await settlementOf(client, po);
    if (s.items.length > 0 || s.fees.length > 0) out.push(s);
  }
  return out;
}
