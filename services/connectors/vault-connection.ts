// What a vault connection (Stripe's vault, Basis Theory) is: a provider connected like an account
// (per mode, its key sealed, a `test` call) with the providers it may forward a card to
// (`destinations`), never routed to, so its connector refuses every payment call and only its
// `test` call is its own. Forwarding through it is the destination connector's business
// (vault-forwarding.ts); each vault's folder says only what is its own.
import { rule } from './error-rules.js';
import { failed } from './outcome-mapping.js';
import type { ProviderCapabilities } from '../contract/provider-facts.js';
import type { ProviderChecks } from './provider-definition.js';
import type { Connector } from './types.js';
import { destinationsProblem } from './vault-forwarding.js';

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

/** A vault's own facts; the rest of its definition is every vault connection's. */
export interface VaultFacts {
  code: string;
  name: string;
  /** The vault a forwarded attempt names (`capabilities.vault`). */
  vault: ProviderCapabilities['vault'] & string;
  /** The provider whose own tokens the vault's references also are (`capabilities.vaultTokenIssuer`). */
  tokenIssuer?: string;
  /** The credential field of the key that forwards and that the `test` call checks. */
  key: { name: string; env: string };
  officialHost: RegExp;
  /** A key that says its mode and is wrong for the connection's: [field, why]. */
  keyMismatch?(values: Record<string, string>, mode: string): [string, string] | undefined;
  /** Destinations whose forwarded request the vault cannot fill, with why (destinationsProblem). */
  cannotReach?: Record<string, string>;
}

export function vaultChecks(v: VaultFacts): ProviderChecks {
  return {
    code: v.code,
    name: v.name,
    // None: a vault connection is never a route of its own.
    methods: [],
    currencies: [],
    countries: [],
    capabilities: {
      settlementSync: false,
      settlementReports: false,
      notifications: false,
      vaultForwarding: false,
      vault: v.vault,
      ...(v.tokenIssuer && { vaultTokenIssuer: v.tokenIssuer }),
    },
    credentialFields: [
      { name: v.key.name, required: true, secret: true, env: v.key.env },
      // The provider codes the vault may forward to, comma-separated (e.g. "adyen").
      { name: 'destinations', required: true, secret: false },
      { name: 'api_base_url', required: false, secret: false },
    ],
    officialHost: v.officialHost,
    modeMismatch: (values, mode) => v.keyMismatch?.(values, mode) ?? destinationsProblem(values, v.cannotReach),
  };
}
