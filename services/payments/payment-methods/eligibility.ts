// Which accounts a payment's credential reaches, told to the route planner, and which token each
// chosen account is then sent. A provider token reaches its issuing provider (one
// account of it when account-bound); a vault reference reaches, through a connected vault, the
// providers the vault may forward to, and the provider whose own tokens the vault's references
// also are (Stripe's vault: a PaymentMethod), directly. Demo accounts simulate a provider and take
// any credential.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { CredentialReachSchema, RouteCandidate } from '../../../proto/gen/svc/routing/v1/routing_pb.js';
import { invalidField } from '../../contract/index.js';
import type { CredentialRecord } from './store.js';

type ReachInit = NonNullable<MessageInitShape<typeof CredentialReachSchema>['reach']>[number];

/** A connected vault as eligibility needs it: the providers it forwards to and its price per forwarded attempt. */
export interface VaultRoute {
  vault: string;
  /** The scope's connection of the vault (its provider account); absent where only reach matters. */
  accountId?: string;
  destinations: string[];
  feeFixed: bigint;
  feeBps: number;
}

/** A token and who issued it, whichever way it arrived (a stored credential or the request's one-off token). */
export interface PaymentCredential {
  kind: 'provider_token' | 'vault_token';
  token: string;
  providerCode: string | null;
  providerAccountId: string | null;
  vault: string | null;
}

export interface PaymentCredentials {
  /** What the planner is told; undefined: every account may be tried (no credential to go by, test mode). */
  reach?: ReachInit[];
  /** The token a candidate is sent (a forwarded candidate: the vault's reference); undefined: none. */
  tokenFor(candidate: Pick<RouteCandidate, 'providerCode' | 'providerAccountId' | 'vault'>): string | undefined;
}

/** The provider whose token shape the token has (connectors' `issuedToken`), if exactly one claims it. */
export type IssuerOf = (token: string) => string | undefined;

/** By vault, the provider whose own tokens its references also are (a definition's `vaultTokenIssuer`). */
export type VaultIssuers = ReadonlyMap<string, string>;

function directReach(c: PaymentCredential, vaultIssuers: VaultIssuers): ReachInit[] {
  if (c.kind === 'provider_token') {
    return c.providerCode ? [{ providerCode: c.providerCode, providerAccountId: c.providerAccountId ?? undefined }] : [];
  }
  const issuer = c.vault === null ? undefined : vaultIssuers.get(c.vault);
  return issuer ? [{ providerCode: issuer }] : [];
}

function forwardedReach(c: PaymentCredential, vaults: VaultRoute[]): ReachInit[] {
  if (c.kind !== 'vault_token') return [];
  return vaults.filter((v) => v.vault === c.vault).flatMap((v) => v.destinations.map((providerCode) => ({
    providerCode, vault: v.vault, vaultFeeFixed: v.feeFixed, vaultFeeBps: v.feeBps,
  })));
}

/** Credentials without a known issuer (stored before credentials named their provider_code) get one from their shape. */
function withIssuer(c: PaymentCredential, issuerOf: IssuerOf): PaymentCredential {
  return c.kind === 'provider_token' && !c.providerCode ? { ...c, providerCode: issuerOf(c.token) ?? null } : c;
}

export function credentialsOf(list: PaymentCredential[], vaults: VaultRoute[], vaultIssuers: VaultIssuers): PaymentCredentials {
  return {
    reach: list.flatMap((c) => [...directReach(c, vaultIssuers), ...forwardedReach(c, vaults)]),
    tokenFor(candidate) {
      if (candidate.vault) return list.find((c) => c.kind === 'vault_token' && c.vault === candidate.vault)?.token;
      const bound = list.find((c) => c.providerCode === candidate.providerCode && c.providerAccountId === candidate.providerAccountId);
      const issued = list.find((c) => c.providerCode === candidate.providerCode && !c.providerAccountId);
      const vaulted = list.find((c) => c.kind === 'vault_token' && c.vault !== null && vaultIssuers.get(c.vault) === candidate.providerCode);
      // A demo account simulates any provider: it is sent the method's first token.
      const demo = candidate.providerCode.startsWith('demo_') ? list[0] : undefined;
      return (bound ?? issued ?? vaulted ?? demo)?.token;
    },
  };
}

const anyAccount = (token: string | undefined): PaymentCredentials => ({ reach: undefined, tokenFor: () => token });

/** A stored method's credentials; one without a known issuer reaches every account in test mode only. */
export function storedCredentials(
  records: CredentialRecord[], mode: string, issuerOf: IssuerOf, vaults: VaultRoute[], vaultIssuers: VaultIssuers,
): PaymentCredentials {
  const list = records.map((r): PaymentCredential => withIssuer({
    kind: r.kind, token: r.token, providerCode: r.providerCode, providerAccountId: r.providerAccountId, vault: r.vaultCode,
  }, issuerOf));
  if (mode === 'test' && list.some((c) => c.kind === 'provider_token' && !c.providerCode)) return anyAccount(list[0]?.token);
  return credentialsOf(list, vaults, vaultIssuers);
}

/**
 * The request's one-off `payment_method.token`: bound to `provider_code` when given, else to the
 * provider its shape names, else (test mode only) sent to any account as before. A live token
 * whose issuer nobody can tell is refused before anything is written: it would be sent to
 * providers that cannot use it. Without a token, `provider_code` still names the one provider
 * the customer pays at (a PayPal wallet), so providers that need a token are not asked first.
 */
export function oneOffCredential(
  token: string | undefined, providerCode: string | undefined, mode: string, issuerOf: IssuerOf,
): PaymentCredentials {
  if (token === undefined) return providerCode ? { reach: [{ providerCode }], tokenFor: () => undefined } : anyAccount(undefined);
  const issuer = providerCode ?? issuerOf(token);
  if (issuer) return credentialsOf([{ kind: 'provider_token', token, providerCode: issuer, providerAccountId: null, vault: null }], [], new Map());
  if (mode === 'test') return anyAccount(token);
  throw invalidField('payment_method.provider_code',
    'payment_method.provider_code is required: the provider that issued payment_method.token cannot be told from its shape');
}
