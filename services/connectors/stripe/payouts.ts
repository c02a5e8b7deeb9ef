// Payouts through a Stripe account: Stripe's Payouts API (POST /v1/payouts) sends the account's
// available balance to one of its external accounts (a bank account ba_… or a debit card card_…),
// which is the beneficiary token of the contract's payout destination. The payout id is the
// Idempotency-Key and metadata.payout_id; outcomes and failures come from payout-errors.ts.
import type Stripe from 'stripe';
import { idTime } from '../../platform/ids.js';
import { toStripeAmount } from './amounts.js';
import { withSignal, type StripeClients } from './client.js';
import { CONDITIONS, FAILURE_CODES, payoutRuleFor, type PayoutRule } from './payout-errors.js';
import { isStripeError } from './outcomes.js';
import { answerId, answerStatus } from '../outcome-mapping.js';
import type { PayoutRequest, PayoutResult, PayoutStatusRequest, PayoutStatusResult } from '../types.js';
import { minorToJson } from '../../contract/money.js';

/** Stripe pays out bank accounts and debit cards; a wallet has no Stripe external account. */
const DESTINATIONS = new Set(['bank_account', 'card_token']);

/** Currencies whose payouts Stripe takes in whole units only (amount divisible by 100). */
const WHOLE_UNIT_PAYOUTS = new Set(['HUF', 'TWD']);

/** A Payout's statuses (https://docs.stripe.com/api/payouts/object#payout_object-status). */
const PAYOUT_STATUSES = ['paid', 'pending', 'in_transit', 'canceled', 'failed'] as const;

/** How far before a payout's id time a lost one is looked for (clock differences between hosts). */
const LOOKBACK_MS = 10 * 60_000;
/** The most payouts a lookup reads back; a busy account's older payouts are then not found. */
const LOOKUP_LIMIT = 1000;

/** The amount as Stripe takes it for a payout, or undefined when it cannot be paid out exactly. */
export function stripePayoutAmount(amount: bigint, currency: string): bigint | undefined {
  const value = toStripeAmount(amount, currency);
  if (value === undefined) return undefined;
  return WHOLE_UNIT_PAYOUTS.has(currency.toUpperCase()) && value % 100n !== 0n ? undefined : value;
}

export function payoutParams(req: PayoutRequest): Stripe.PayoutCreateParams | PayoutRule {
  if (!DESTINATIONS.has(req.destination.type)) return CONDITIONS.destination_not_supported;
  const amount = stripePayoutAmount(req.amount, req.currency);
  if (amount === undefined) return CONDITIONS.amount_not_representable;
  return {
    amount: minorToJson(amount),
    currency: req.currency.toLowerCase(),
    // Without a token Stripe uses the account's default external account for the currency.
    ...(req.destination.token && { destination: req.destination.token }),
    ...(req.description && { description: req.description }),
    metadata: { payout_id: req.payoutId },
  };
}

const failed = (r: PayoutRule, provider: { id?: string | null; code?: string | null; message?: string | null } = {}): PayoutResult => ({
  outcome: r.outcome,
  providerPayoutId: provider.id ?? null,
  providerCode: provider.code ?? null,
  providerMessage: provider.message ?? r.message,
  ...(r.outcome !== 'timeout' && { failure: { category: r.category, code: r.code, message: r.message } }),
});

/**
 * A payout's status: paid is a success; pending and in_transit are on their way (asked again
 * later); failed by its failure_code; canceled returned the funds. Stripe documents that a paid
 * payout can still turn failed within days; the payout is then already successful here. One
 * without its id or with another status decides nothing (UnreadableAnswer): its status is asked.
 */
export function fromPayout(p: Stripe.Payout): PayoutResult {
  answerId('Stripe', 'payout', p);
  answerStatus('Stripe', 'payout', p, PAYOUT_STATUSES);
  const provider = { id: p.id, code: p.failure_code ?? p.status, message: p.failure_message ?? null };
  if (p.status === 'paid') return { outcome: 'success', providerPayoutId: p.id, providerCode: p.status, providerMessage: null };
  if (p.status === 'pending' || p.status === 'in_transit') {
    return { outcome: 'pending', providerPayoutId: p.id, providerCode: p.status, providerMessage: null };
  }
  if (p.status === 'canceled') return failed(CONDITIONS.canceled, provider);
  return failed((p.failure_code && FAILURE_CODES[p.failure_code]) || CONDITIONS.failed, provider);
}

function fromError(err: unknown): PayoutResult {
  if (!isStripeError(err)) throw err;
  return failed(payoutRuleFor(err), { code: err.code ?? err.type, message: err.message });
}

export function createStripePayouts(clients: StripeClients) {
  /**
   * Our payout id in metadata, among the account's payouts made since shortly before the id's
   * time: Stripe keeps no lookup by Idempotency-Key and payouts have no search.
   */
  async function lookUp(client: Stripe, req: PayoutStatusRequest): Promise<Stripe.Payout | undefined> {
    const since = (idTime(req.payoutId)?.getTime() ?? Date.now()) - LOOKBACK_MS;
    const list = client.payouts.list({ created: { gte: Math.floor(since / 1000) }, limit: 100 });
    let read = 0;
    for await (const p of list) {
      if (p.metadata?.payout_id === req.payoutId) return p;
      if (++read >= LOOKUP_LIMIT) break;
    }
    return undefined;
  }

  return {
    async payout(req: PayoutRequest): Promise<PayoutResult> {
      const account = await clients.forAccount(req.account.id);
      if (!account) return failed(CONDITIONS.missing_credentials);
      const params = payoutParams(req);
      if (!('amount' in params)) return failed(params, { code: req.destination.type });
      try {
        const p = await withSignal(req.signal, () => account.client.payouts.create(params, { idempotencyKey: req.payoutId }));
        return fromPayout(p);
      } catch (err) {
        return fromError(err);
      }
    },

    /**
     * By Stripe's payout id once known (a pending payout asked again); after a lost answer by our
     * payout id in the account's recent payouts. Not there: Stripe never made it, and it is sent
     * again with the same key. A transport failure is thrown: the payout stays unknown.
     */
    async payoutStatus(req: PayoutStatusRequest): Promise<PayoutStatusResult> {
      const account = await clients.forAccount(req.account.id);
      // The payout may have left with the old credentials: nothing can be told without them.
      if (!account) throw new Error(CONDITIONS.missing_credentials.message);
      const p = await withSignal(req.signal, () => (req.providerPayoutId
        ? account.client.payouts.retrieve(req.providerPayoutId)
        : lookUp(account.client, req)));
      return p ? { found: true, ...fromPayout(p) } : { found: false };
    },
  };
}
