import type { Client } from '@connectrpc/connect';
import type { PayoutAnswer, ProviderPayoutsService } from '../../proto/gen/svc/payments/v1/provider_payouts_pb.js';
import type { PayoutConnector, PayoutOutcome, SendPayoutResult } from './providers.js';

/**
 * Licensed providers' payouts, through payments' ProviderPayoutsService: payments is the one part
 * that holds provider credentials and calls providers. The call's signal ends the RPC at the
 * dispatcher's deadline, and payments stops the provider call with it.
 */

const OUTCOMES: ReadonlySet<string> = new Set<PayoutOutcome>([
  'success', 'pending', 'hard_decline', 'technical_error', 'provider_unavailable', 'timeout',
]);

/** Payments' answer (a send, a status query, a provider's notification) as the dispatcher reads it. */
export function resultOf(a: PayoutAnswer | undefined): SendPayoutResult {
  // An outcome this part does not know (a newer payments) decides nothing: the payout stays open.
  const outcome = a && OUTCOMES.has(a.outcome) ? (a.outcome as PayoutOutcome) : 'timeout';
  return {
    outcome,
    providerPayoutId: a?.providerPayoutId ?? null,
    providerCode: a?.providerCode ?? null,
    providerMessage: a?.providerMessage ?? null,
    ...(a?.failure && { failure: { code: a.failure.code, category: a.failure.category, message: a.failure.message } }),
  };
}

export function createLicensedPayoutConnector(payments: Client<typeof ProviderPayoutsService>): PayoutConnector {
  return {
    async send(req) {
      const res = await payments.sendPayout({
        scope: req.scope,
        payoutId: req.payoutId,
        providerCode: req.providerCode,
        providerAccountId: req.providerAccountId,
        amount: req.amount,
        currency: req.currency,
        destination: {
          type: req.destination.type,
          token: req.destination.token ?? undefined,
          holderName: req.destination.holderName ?? undefined,
          country: req.destination.country ?? undefined,
        },
        description: req.description,
      }, { signal: req.signal });
      return resultOf(res.answer);
    },

    async status(req) {
      const res = await payments.getPayoutStatus({
        scope: req.scope,
        payoutId: req.payoutId,
        providerCode: req.providerCode,
        providerAccountId: req.providerAccountId,
        providerPayoutId: req.providerPayoutId ?? undefined,
        currency: req.currency,
      }, { signal: req.signal });
      return res.found ? { found: true, ...resultOf(res.answer) } : { found: false };
    },
  };
}
