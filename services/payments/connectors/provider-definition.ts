// One provider as the rest of the system learns it: its facts (shared/provider-facts.ts), the
// checks on its credentials, its official API hosts and the factory of its connector. Each
// provider's folder exports one (connectors/<code>/index.ts); providers.ts lists them.
import type { ProviderFacts } from '../../contract/provider-facts.js';
import type { ProviderNetwork } from './provider-fetch.js';
import type { Connector, CredentialSource } from './types.js';

/** Makes a provider's connector, handing it the source of its accounts' decrypted credentials. */
export type ConnectorFactory = (deps: { credentials: CredentialSource; network: ProviderNetwork }) => Connector;

export interface ProviderDefinition extends ProviderFacts {
  /** The provider's documented API hosts: an api_base_url naming one is no detour (provider-base-url.ts). */
  officialHost?: RegExp;
  /** A credential's value is wrong for the account's mode (a test key on a live account): [field, why]. */
  modeMismatch?(values: Record<string, string>, mode: string): [string, string] | undefined;
  create: ConnectorFactory;
}

/** The providers by code; a code listed twice is a programming error, refused at start. */
export function providersByCode(list: readonly ProviderDefinition[]): Map<string, ProviderDefinition> {
  const byCode = new Map<string, ProviderDefinition>();
  for (const p of list) {
    if (!/^[a-z][a-z0-9_]{1,30}$/.test(p.code) || p.code.startsWith('demo_')) throw new Error(`provider code "${p.code}" is not usable`);
    if (byCode.has(p.code)) throw new Error(`provider "${p.code}" is listed twice`);
    byCode.set(p.code, p);
  }
  return byCode;
}
