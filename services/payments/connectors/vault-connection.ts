// What a vault connection (Stripe's vault, Basis Theory) is as a connector: never routed to, so it
// refuses every payment call; only its `test` call is its own. Forwarding through it is the
// destination connector's business (vault-forwarding.ts).
import { rule } from './error-rules.js';
import { failed } from './outcome-mapping.js';
import type { Connector } from './types.js';

const NOT_A_ROUTE = rule('technical', 'provider_unavailable', 'A vault connection takes no payment of its own', 'provider_unavailable');

export function vaultConnectionConnector(checkCredentials: NonNullable<Connector['checkCredentials']>): Connector {
  return {
    authorize: async () => failed(NOT_A_ROUTE),
    getStatus: async () => ({ found: false }),
    refund: async () => ({
      outcome: 'hard_decline', providerRefundId: null, providerCode: null, providerMessage: NOT_A_ROUTE.message,
    }),
    checkCredentials,
  };
}
