import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import {
  storedCredentials, type IssuerOf, type PaymentCredentials, type PaymentMethodStore, type VaultIssuers, type VaultRoute,
} from '../payment-methods/index.js';
import type { AttemptRecord, PaymentRecord } from './model.js';
import { forwardingOf, type ProviderCall } from './provider-call.js';

// Where a payment's credentials come from, for its attempts and for any later call about one of
// them. The orchestrator sends each attempt its token (or its vault's reference, forwarded); a
// status query after a crash sends the provider the same (reconciliation), so it can repeat the
// attempt under its key and read the stored answer instead of waiting on a search or a
// notification. A one-off token is not stored: an attempt made with one is asked about without it.

export interface CredentialSources {
  paymentMethods: Pick<PaymentMethodStore, 'credentials' | 'networkTransactionIdRow'>;
  /** The provider a token's shape names (the providers' `issuedToken`). */
  issuerOf: IssuerOf;
  /** By vault, the provider whose own tokens its references also are (the vault definitions' `vaultTokenIssuer`). */
  vaultIssuers: VaultIssuers;
  /** The vaults the scope connected, with the providers each forwards to; none when absent. */
  vaults?: (scope: Scope) => Promise<VaultRoute[]>;
}

/** A stored method's credentials, with the scope's vault connections they may be forwarded through. */
export async function methodCredentials(
  src: CredentialSources, scope: Scope, methodId: string,
): Promise<{ credentials: PaymentCredentials; vaults: VaultRoute[] }> {
  const [records, vaults] = await Promise.all([
    src.paymentMethods.credentials(scope, methodId), src.vaults?.(scope) ?? Promise.resolve([]),
  ]);
  return { credentials: storedCredentials(records, scope.mode, src.issuerOf, vaults, src.vaultIssuers), vaults };
}

/** The token an attempt was sent and, for a forwarded one, the vault connection it went through. */
export async function attemptCredential(
  src: CredentialSources, scope: Scope, payment: PaymentRecord, attempt: AttemptRecord,
): Promise<Pick<ProviderCall, 'paymentMethodToken' | 'forwarding'>> {
  if (!payment.paymentMethodId) return {};
  const { credentials, vaults } = await methodCredentials(src, scope, payment.paymentMethodId);
  const vault = attempt.vault ?? '';
  return {
    paymentMethodToken: credentials.tokenFor({ providerCode: attempt.providerCode, providerAccountId: attempt.providerAccountId, vault }),
    forwarding: forwardingOf({ vault, vaultAccountId: vaults.find((v) => v.vault === vault)?.accountId }),
  };
}
