// Basis Theory's side of a forwarded attempt: the destination's prepared request goes to the
// ephemeral proxy (POST /proxy, `BT-API-KEY`, `BT-PROXY-URL` the destination's URL) with the
// token's expressions where the card's fields go; Basis Theory evaluates them, calls the
// destination with the other headers as sent (the destination's Idempotency-Key among them, so a
// repeat is answered from the destination's store) and answers the destination's response as is.
// That answer needs no redaction: Basis Theory only inserts card data into the request, and a
// destination does not echo a card number back (Adyen answers a masked summary at most).
import type { ProviderNetwork } from '../provider-fetch.js';
import type { CredentialSource } from '../types.js';
import type { CardPlaceholders, ForwardedAnswer, VaultForwarder } from '../vault-forwarding.js';
import { createBasisTheoryClients } from './client.js';

/**
 * A card token's expressions (Basis Theory's detokenization expressions on the token object). A
 * card token holds number, expiration_month (a number), expiration_year and cvc; destinations take
 * a two-digit month, hence `pad_left`. Card tokens keep no holder name, so none is sent.
 */
export function basisTheoryPlaceholders(token: string): CardPlaceholders {
  const field = (path: string, filter = '') => `{{ token: ${token} | json: '$.data.${path}'${filter} }}`;
  return {
    number: field('number'),
    expiryMonth: field('expiration_month', " | pad_left: 2, '0'"),
    expiryYear: field('expiration_year'),
    cvc: field('cvc'),
    holderName: '',
  };
}

/** The vault gave no answer of the destination; the message never holds card data (we never had it). */
export class BasisTheoryProxyError extends Error {
  override readonly name = 'BasisTheoryProxyError';
}

// Ours to set on the proxy request; the destination's own would be forwarded twice or wrongly.
const PROXY_SETS = new Set(['host', 'content-length', 'bt-api-key', 'bt-proxy-url']);

export function createBasisTheoryForwarder(
  { credentials, network = { allowlist: [] } }: { credentials: CredentialSource; network?: ProviderNetwork },
): VaultForwarder {
  const clients = createBasisTheoryClients(credentials, network);
  return {
    placeholders: basisTheoryPlaceholders,
    async forward(route, request, signal): Promise<ForwardedAnswer> {
      const bt = await clients.forAccount(route.vaultAccountId);
      if (!bt) throw new BasisTheoryProxyError('The Basis Theory vault connection has no stored api_key');
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !PROXY_SETS.has(name.toLowerCase())));
      let res: Response;
      try {
        res = await bt.send(`${bt.baseUrl}/proxy`, {
          method: 'POST', body: request.body, signal,
          headers: { ...headers, 'BT-API-KEY': bt.apiKey, 'BT-PROXY-URL': request.url },
        });
      } catch (err) {
        if (signal.aborted) throw err;
        throw new BasisTheoryProxyError(`Basis Theory's proxy could not be reached: ${(err as Error).message}`);
      }
      const body = await res.text();
      const own = proxyError(body);
      if (own !== undefined) throw new BasisTheoryProxyError(`Basis Theory's proxy refused the request (HTTP ${res.status}): ${own}`);
      return { status: res.status, headers: Object.fromEntries([...res.headers].map(([n, v]) => [n.toLowerCase(), v])), body };
    },
  };
}

/**
 * Basis Theory's own errors (a bad key, an unknown token, a destination it could not reach) come
 * wrapped in `proxy_error`; anything else is the destination's answer.
 */
function proxyError(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { proxy_error?: { title?: string; detail?: string } };
    if (parsed && typeof parsed === 'object' && parsed.proxy_error) {
      return parsed.proxy_error.title ?? parsed.proxy_error.detail ?? 'proxy_error';
    }
  } catch {
    // Not JSON: the destination's answer, whatever it is.
  }
  return undefined;
}
