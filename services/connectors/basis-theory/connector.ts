// A Basis Theory vault connection's connector (vault-connection.ts): its `test` call reads the key's
// own application (GET /applications/key, harmless) and checks it may use tokens in the proxy (`token:use`).
import type { ProviderNetwork } from '../provider-fetch.js';
import type { Connector, CredentialSource } from '../types.js';
import { vaultConnectionConnector } from '../vault-connection.js';
import { basisTheorySdk, createBasisTheoryClients } from './client.js';

/** What the proxy needs of the key (Basis Theory's permission to detokenize in a proxy request). */
export const PROXY_PERMISSION = 'token:use';

export function createBasisTheoryConnector(
  { credentials, network = { allowlist: [] } }: { credentials: CredentialSource; network?: ProviderNetwork },
): Connector {
  const clients = createBasisTheoryClients(credentials, network);
  return vaultConnectionConnector(async (account) => {
    const bt = await clients.forAccount(account.id);
    if (!bt) return { ok: false, providerCode: null, message: 'The vault connection has no stored api_key' };
    try {
      const app = await bt.client.applications.getByKey();
      if (!(app.permissions ?? []).includes(PROXY_PERMISSION)) {
        return { ok: false, providerCode: 'missing_permission', message: `The key's application lacks the ${PROXY_PERMISSION} permission the proxy needs` };
      }
      return { ok: true };
    } catch (err) {
      const sdk = basisTheorySdk.loaded();
      if (!sdk || !(err instanceof sdk.BasisTheoryError)) throw err;
      // The SDK's message repeats the whole answer; its problem title says it in a line.
      const title = (err.body as { title?: unknown } | undefined)?.title;
      const status = err.statusCode === undefined ? null : String(err.statusCode);
      return { ok: false, providerCode: status, message: `Basis Theory: ${typeof title === 'string' ? title : 'no answer'}${status ? ` (HTTP ${status})` : ''}` };
    }
  });
}
