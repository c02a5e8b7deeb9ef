// The one seam between a destination connector and a card vault: the connector builds
// its own raw-card request with the vault's placeholders where the card's fields go, and hands the
// prepared request to the vault, which inserts the card on its side, calls the destination and
// gives back the destination's answer with the card redacted. Our processes never hold the card.
// A vault plugs in as a ProviderDefinition with `capabilities.vault` and a `forwarder`
// (connectors/stripe-vault/, connectors/basis-theory/); a destination declares `capabilities.vaultForwarding`.
import type { ErrorRule } from './error-rules.js';
import { failed } from './outcome-mapping.js';
import type { ProviderNetwork } from './provider-fetch.js';
import type { AuthorizeRequest, AuthorizeResult, CredentialSource } from './types.js';

/**
 * What a vault wants in place of each card field of the destination's request. Stripe's Forwarding
 * API takes the fields empty ("") and fills them by the destination's configured schema; Basis
 * Theory's proxy takes expressions naming the token (`{{ token: <id> | json: '$.data.number' }}`),
 * which is why a forwarder makes them per token.
 */
export interface CardPlaceholders {
  number: string;
  expiryMonth: string;
  expiryYear: string;
  cvc: string;
  holderName: string;
}

/** The attempt's way through a vault: which vault connection, and the card's reference in it. */
export interface ForwardRoute {
  vault: string;
  /** The vault connection (a provider account of the vault provider) whose credentials forward. */
  vaultAccountId: string;
  /** The card's reference in the vault (Stripe: the PaymentMethod `pm_…`; Basis Theory: the token id). */
  token: string;
  /** Our attempt id: the vault's own idempotency key is derived from it, so one attempt forwards once. */
  attemptId: string;
}

/** A destination request as its connector prepared it, card fields holding placeholders. */
export interface PreparedRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The destination's answer as the vault relays it (card data redacted by the vault). */
export interface ForwardedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface VaultForwarder {
  /** The placeholders for one card's reference in the vault (ForwardRoute.token). */
  placeholders(token: string): CardPlaceholders;
  /**
   * Sends the request through the vault. Throws when the vault gave no answer of the destination
   * (the vault refused, failed or timed out): the destination may or may not have been reached,
   * which the destination connector's status query (direct, no card) then tells.
   */
  forward(route: ForwardRoute, request: PreparedRequest, signal: AbortSignal): Promise<ForwardedAnswer>;
}

/**
 * Why a vault connection's `destinations` (comma-separated provider codes) is unusable, or
 * undefined. `cannotReach` names the destinations a vault cannot fill a request for, with why.
 */
export function destinationsProblem(
  values: Record<string, string>, cannotReach: Record<string, string> = {},
): [string, string] | undefined {
  const codes = (values.destinations ?? '').split(',').map((d) => d.trim());
  const bad = codes.find((d) => !/^[a-z][a-z0-9_]{1,30}$/.test(d));
  if (bad !== undefined) return ['destinations', `destinations is a comma-separated list of provider codes ("${bad}" is not one)`];
  const unreachable = codes.find((d) => d in cannotReach);
  if (unreachable !== undefined) return ['destinations', `This vault cannot forward to ${unreachable}: ${cannotReach[unreachable]}`];
  return undefined;
}

/** Makes a vault's forwarder with the part's credential source (the vault connection's secret key). */
export type ForwarderFactory = (deps: { credentials: CredentialSource; network: ProviderNetwork }) => VaultForwarder;

export interface VaultForwarders {
  forVault(vault: string): VaultForwarder | undefined;
}

/** The vault providers' forwarders by the vault they serve (`capabilities.vault`). */
export function createVaultForwarders(
  providers: Iterable<{ capabilities: { vault?: string }; forwarder?: ForwarderFactory }>,
  deps: { credentials: CredentialSource; network: ProviderNetwork },
): VaultForwarders {
  const byVault = new Map<string, VaultForwarder>();
  for (const p of providers) {
    if (p.capabilities.vault && p.forwarder) byVault.set(p.capabilities.vault, p.forwarder(deps));
  }
  return { forVault: (vault) => byVault.get(vault) };
}

/**
 * A fetch that sends through the vault: for connectors whose HTTP goes through a fetch they are
 * handed (an SDK's transport), so the forwarded request is serialised, and its answer read, by
 * exactly the code of a direct call. Only POST with a text body is forwarded (what vaults take).
 */
export function forwardingFetch(forwarder: VaultForwarder, route: ForwardRoute): typeof fetch {
  return async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'POST' || typeof init?.body !== 'string') throw new Error(`a vault forwards POST requests with a JSON body, not ${method}`);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const url = input instanceof Request ? input.url : String(input);
    const signal = init.signal ?? new AbortController().signal;
    const answer = await forwarder.forward(route, { url, headers, body: init.body }, signal);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}

/** The destination's error-table rules for an attempt that cannot start (payDirectOrForwarded). */
export interface ForwardingConditions {
  vault_not_connected: ErrorRule;
  unusable_token: ErrorRule;
  missing_credentials: ErrorRule;
}

/**
 * An attempt's authorization at a destination of vault forwarding: a forwarded attempt
 * is paid by the destination's client made with a fetch that goes through the vault, with the
 * vault's placeholders for the card; any other directly. Refused before anything is sent when the
 * vault, the token or the destination's credentials are missing. `pay` builds and sends the
 * destination's own request, its card fields from `placeholders` when there are any.
 */
export async function payDirectOrForwarded<A>(
  req: AuthorizeRequest,
  { vaults, clients, conditions, pay }: {
    vaults: VaultForwarders | undefined;
    clients: { forAccount(accountId: string, via?: typeof fetch): Promise<A | undefined> };
    conditions: ForwardingConditions;
    pay: (account: A, placeholders?: CardPlaceholders) => Promise<AuthorizeResult>;
  },
): Promise<AuthorizeResult> {
  if (!req.forwarding) {
    const account = await clients.forAccount(req.account.id);
    if (!account) return failed(conditions.missing_credentials);
    return pay(account);
  }
  const forwarder = vaults?.forVault(req.forwarding.vault);
  if (!forwarder) return failed(conditions.vault_not_connected);
  if (!req.paymentMethodToken) return failed(conditions.unusable_token);
  const via = forwardingFetch(forwarder, { ...req.forwarding, token: req.paymentMethodToken, attemptId: req.attemptId });
  const account = await clients.forAccount(req.account.id, via);
  if (!account) return failed(conditions.missing_credentials);
  return pay(account, forwarder.placeholders(req.paymentMethodToken));
}
