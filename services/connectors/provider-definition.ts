// One provider as the rest of the system learns it: its facts (contract/provider-facts.ts), the
// checks on its credentials and tokens, its official API hosts (all plain code: a folder's facts.ts)
// and a loader of its connector, which alone brings in the provider's SDK. Each provider's folder
// exports one (connectors/<code>/index.ts); providers.ts lists them. Whatever needs only the facts
// (routing-risk, the CLI, the gateway) reads the list without loading any SDK; payments loads the
// connectors once at start (loadProviders).
import type { ProviderFacts } from '../contract/provider-facts.js';
import type { ProviderNetwork } from './provider-fetch.js';
import type { Connector, CredentialSource } from './types.js';
import type { ForwarderFactory, VaultForwarders } from './vault-forwarding.js';

/**
 * Makes a provider's connector, handing it the source of its accounts' decrypted credentials and,
 * for a destination of vault forwarding (`capabilities.vaultForwarding`), the connected vaults.
 */
export type ConnectorFactory = (deps: { credentials: CredentialSource; network: ProviderNetwork; vaults?: VaultForwarders }) => Connector;

/** The documented shape of a credential field that becomes part of a host the SDK builds. */
export interface HostFieldShape {
  pattern: RegExp;
  /** The 422's message when a value has another shape (never quoting the value). */
  says: string;
}

/** A provider's facts and the checks on its credentials and tokens: no SDK behind any of it. */
export interface ProviderChecks extends ProviderFacts {
  /** The provider's documented API hosts: where its requests go without an api_base_url, and no detour when named by one (provider-base-url.ts). */
  officialHost?: RegExp;
  /**
   * Credential fields the provider's SDK builds a host from (Adyen's live URL prefix, Checkout.com's
   * subdomain), by their documented shape: a value of any other shape is refused when connected, so
   * it cannot turn the host into another (provider-fetch.ts refuses whatever was stored before).
   */
  hostFields?: Record<string, HostFieldShape>;
  /** A credential's value is wrong for the account's mode (a test key on a live account): [field, why]. */
  modeMismatch?(values: Record<string, string>, mode: string): [string, string] | undefined;
  /**
   * A one-off token whose shape says this provider issued it (Stripe's `pm_…`): such a payment goes
   * to this provider's accounts only (docs/connectors.md, "Vaults and credentials"). Leave it out when
   * the provider's tokens have no shape of their own; merchants then name the issuer (`provider_code`).
   */
  issuedToken?(token: string): boolean;
}

/** What a provider's connector module offers once loaded. */
export interface ConnectorModule {
  create: ConnectorFactory;
  /** A vault provider's (`capabilities.vault`) forwarding client: how destinations send through it. */
  forwarder?: ForwarderFactory;
}

export interface ProviderDefinition extends ProviderChecks {
  /** Loads the connector (and with it the provider's SDK) by a dynamic import of the folder's connector module. */
  connector(): Promise<ConnectorModule>;
}

/** A provider whose connector is loaded: what payments builds its connectors from. */
export type LoadedProvider = ProviderChecks & ConnectorModule;

/** Loads each provider's connector, once per start of the part that calls providers. */
export async function loadProviders(list: readonly ProviderDefinition[]): Promise<LoadedProvider[]> {
  return Promise.all(list.map(async ({ connector, ...checks }) => ({ ...checks, ...(await connector()) })));
}

/** The providers by code; a code listed twice is a programming error, refused at start. */
export function providersByCode<P extends ProviderFacts>(list: readonly P[]): Map<string, P> {
  const byCode = new Map<string, P>();
  for (const p of list) {
    if (!/^[a-z][a-z0-9_]{1,30}$/.test(p.code) || p.code.startsWith('demo_')) throw new Error(`provider code "${p.code}" is not usable`);
    if (byCode.has(p.code)) throw new Error(`provider "${p.code}" is listed twice`);
    byCode.set(p.code, p);
  }
  return byCode;
}

/** The provider whose token shape a token has; undefined when none claims it, or several do. */
export function issuerOfTokens(list: readonly ProviderChecks[]): (token: string) => string | undefined {
  return (token) => {
    const claims = list.filter((p) => p.issuedToken?.(token));
    return claims.length === 1 ? claims[0].code : undefined;
  };
}
