// What routing-risk and the tools need to know of a provider: plain data, no behaviour. Each
// provider's definition (services/connectors/<code>/index.ts) is a ProviderFacts with its
// connector and checks added; the entry points hand the one list of definitions to the parts that
// need it, so routing-risk learns providers without importing payments (docs/connectors.md).
import type { ValueOf, VAULTS } from './enums.js';

type Vault = ValueOf<typeof VAULTS>;

/** A credential a connect takes, by the name the provider's API reference gives it. */
export interface CredentialField {
  name: string;
  required: boolean;
  /** Never shown again once stored; the CLI also reads it from `env` so it stays out of shell history. */
  secret: boolean;
  env?: string;
}

/** What a provider pays out to and its own price for a payout; without it, it sends no payouts. */
export interface PayoutCapability {
  destinationTypes: string[];
  feeFixed: number;
  feeBps: number;
}

export interface ProviderCapabilities {
  payouts?: PayoutCapability;
  /** The connector lists settlements (listSettlements): the scheduled settlement sync runs for its accounts. */
  settlementSync: boolean;
  /** The connector reads an uploaded settlement report (readSettlementReport). */
  settlementReports: boolean;
  /** The provider posts notifications the connector verifies (readNotification). */
  notifications: boolean;
  /**
   * The connector takes a card forwarded by a connected vault: it builds its raw-card request with
   * the vault's placeholders and sends it through the vault (connectors/vault-forwarding.ts).
   */
  vaultForwarding: boolean;
  /**
   * This "provider" is a card vault: its accounts are vault connections, which forward a vault
   * reference of this `vault` (a credential's `vault`, one of the contract's VAULTS) to the
   * providers listed in their `destinations` credential, at the account's fee per forwarded
   * attempt. They never take a payment.
   */
  vault?: Vault;
  /**
   * A vault whose references are also the own tokens of this provider (Stripe's vault: a reference
   * is a Stripe PaymentMethod): a payment with such a reference may go to that provider directly.
   */
  vaultTokenIssuer?: string;
}

export interface ProviderFacts {
  /** The provider's code: its routing_risk.providers row is prv_<code>. */
  code: string;
  /** How people name it: messages, the dashboard, the providers row. */
  name: string;
  /** The widest an account may claim; an account narrows them. Empty currencies/countries mean any. */
  methods: string[];
  currencies: string[];
  countries: string[];
  capabilities: ProviderCapabilities;
  credentialFields: CredentialField[];
}

/** The row id of a provider's routing_risk.providers row; stable, data refers to it. */
export const providerRowId = (code: string): string => `prv_${code}`;
