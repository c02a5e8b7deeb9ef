// Stripe's Payouts API in the Stripe stand-in, from its reference (https://docs.stripe.com/api/payouts):
// POST /v1/payouts sends the account's balance to one of its external accounts (`destination`, a
// bank account ba_… or a debit card card_…; the default one without it) and answers the payout
// `pending`; GET /v1/payouts/{id} shows it later, as the bank answered (GET /v1/payouts, the list,
// is the stand-in's, with its automatic payouts). The destination token
// decides that answer, as Stripe's test bank account numbers do (https://docs.stripe.com/connect/testing#payouts):
//   any other ba_…/card_…      pending, then paid
//   ba_standin_accountClosed  pending, then failed with failure_code account_closed
//   ba_standin_staysPending   pending at every look (the bank takes days; a webhook decides it)
//   ba_standin_lostAnswer     made at once, its answer held back slowAnswerMs (a lost answer)
//   ba_standin_noBalance      400 balance_insufficient, nothing made
//   ba_standin_unknown        400 resource_missing (no such external account), nothing made
// Idempotency-Key replay and request recording are the stand-in's own (stripe-stand-in.ts).

type Answer = { status: number; body: Record<string, unknown> };
export type StandInPayout = Record<string, unknown> & { id: string; created: number; status: string };

const error = (status: number, e: Record<string, unknown>): Answer => ({ status, body: { error: e } });
const LATER: Record<string, { status: string; failure_code?: string; failure_message?: string }> = {
  ba_standin_accountClosed: { status: 'failed', failure_code: 'account_closed', failure_message: 'The bank account has been closed.' },
  ba_standin_staysPending: { status: 'pending' },
};

export function createPayoutEndpoints(deps: { nextId(prefix: string): string; payouts: Map<string, StandInPayout> }) {
  function create(p: Record<string, unknown>): Answer {
    const amount = Number(p.amount);
    if (!Number.isInteger(amount) || amount < 1) {
      return error(400, { type: 'invalid_request_error', code: 'parameter_invalid_integer', param: 'amount', message: 'Invalid integer' });
    }
    const currency = String(p.currency ?? '');
    if (currency !== currency.toLowerCase() || currency.length !== 3) {
      return error(400, { type: 'invalid_request_error', param: 'currency', message: `Invalid currency: ${currency}` });
    }
    const destination = p.destination === undefined ? 'ba_standin_default' : String(p.destination);
    if (destination === 'ba_standin_unknown' || !/^(ba|card)_/.test(destination)) {
      return error(400, { type: 'invalid_request_error', code: 'resource_missing', param: 'destination', message: `No such external account: '${destination}'` });
    }
    if (destination === 'ba_standin_noBalance') {
      return error(400, { type: 'invalid_request_error', code: 'balance_insufficient', message: 'You have insufficient funds in your Stripe account for this transfer.' });
    }
    const now = Math.floor(Date.now() / 1000);
    const po: StandInPayout = {
      id: deps.nextId('po'), object: 'payout', amount, currency, status: 'pending', created: now, arrival_date: now + 86_400,
      automatic: false, destination, method: p.method ?? 'standard', type: destination.startsWith('card_') ? 'card' : 'bank_account',
      description: p.description ?? null, metadata: p.metadata ?? {}, failure_code: null, failure_message: null, livemode: false,
      statement_descriptor: null,
    };
    deps.payouts.set(po.id, po);
    return { status: 200, body: po };
  }

  /** The bank's answer arrives between the create and the next look at the payout. */
  function retrieve(id: string): Answer {
    const po = deps.payouts.get(id);
    if (!po) return error(404, { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such payout: '${id}'` });
    if (po.status === 'pending') Object.assign(po, LATER[String(po.destination)] ?? { status: 'paid' });
    return { status: 200, body: po };
  }

  return {
    /** The answer to a payout request, or undefined for any other path. */
    route(method: string, path: string, p: Record<string, unknown>): Answer | undefined {
      if (method === 'POST' && path === '/v1/payouts') return create(p);
      const m = /^\/v1\/payouts\/([^/]+)$/.exec(path);
      if (m && method === 'GET') return retrieve(m[1]);
      return undefined;
    },
    /** A request whose answer the stand-in holds back (the payout is made at once). */
    isSlow: (p: Record<string, unknown>) => p.destination === 'ba_standin_lostAnswer',
  };
}
