// A stored method's credentials over PaymentMethodsService: add one, list them (never their
// tokens), remove one. Which accounts each credential reaches is eligibility.ts's business.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  PaymentMethodCredentialSchema, type AddPaymentMethodCredentialRequest, type PaymentMethodCredential,
} from '../../../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { CREDENTIAL_TYPES, isOneOf, VAULTS } from '../../contract/enums.js';
import { invalidField, serviceError, toConnectError } from '../../contract/index.js';
import { limitReached, MAX_PAYMENT_METHOD_CREDENTIALS } from '../../contract/project-caps.js';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import { requireScope } from '../../platform/request-guards.js';
import { isSecondVault, type CredentialRecord, type PaymentMethodStore } from './store.js';

/** A provider token's size is the provider's business; a Drop-in's encrypted card JSON is a few KiB. */
const MAX_TOKEN_LENGTH = 16_384;
const PROVIDER_CODE = /^[a-z][a-z0-9_]{1,30}$/;

export interface CredentialInput {
  type: string;
  token: string;
  providerCode?: string;
  providerAccountId?: string;
  vault?: string;
}

export function newCredential(paymentMethodId: string, at: Date, c: CredentialInput): CredentialRecord {
  return {
    id: newId('pmc', at),
    paymentMethodId,
    kind: c.type as CredentialRecord['kind'],
    providerCode: c.providerCode ?? null,
    providerAccountId: c.providerAccountId ?? null,
    vaultCode: c.vault ?? null,
    token: c.token,
    createdAt: at,
  };
}

/** The proto shape; like the method's, it has no field for the token. */
export function credentialToProto(c: CredentialRecord): PaymentMethodCredential {
  return create(PaymentMethodCredentialSchema, {
    id: c.id,
    paymentMethodId: c.paymentMethodId,
    type: c.kind,
    providerCode: c.providerCode ?? undefined,
    providerAccountId: c.providerAccountId ?? undefined,
    vault: c.vaultCode ?? undefined,
    createdAt: timestampFromDate(c.createdAt),
  });
}

/** A provider token names its issuer (or eligibility could not tell where it may go); a vault token its vault. */
function checkCredential(req: AddPaymentMethodCredentialRequest): void {
  if (!isOneOf(CREDENTIAL_TYPES, req.type)) throw invalidField('type', `type must be one of ${CREDENTIAL_TYPES.join(', ')}`);
  if (!req.token) throw invalidField('token', 'token is required');
  if (req.token.length > MAX_TOKEN_LENGTH) throw invalidField('token', `token is at most ${MAX_TOKEN_LENGTH} characters`);
  if (req.type === 'provider_token') {
    if (!req.providerCode) throw invalidField('provider_code', 'provider_code (the provider that issued the token) is required');
    if (!PROVIDER_CODE.test(req.providerCode)) throw invalidField('provider_code', 'provider_code is not a provider code');
    if (req.providerAccountId !== undefined && !/^pac_[a-z0-9]{1,64}$/.test(req.providerAccountId)) {
      throw invalidField('provider_account_id', 'provider_account_id is a provider account id (pac_...)');
    }
    if (req.vault !== undefined) throw invalidField('vault', 'vault is for a vault_token only');
    return;
  }
  if (!req.vault) throw invalidField('vault', 'vault is required for a vault_token');
  if (!isOneOf(VAULTS, req.vault)) throw invalidField('vault', `vault must be one of ${VAULTS.join(', ')}`);
  if (req.providerCode !== undefined) throw invalidField('provider_code', 'provider_code is for a provider_token only');
  if (req.providerAccountId !== undefined) throw invalidField('provider_account_id', 'provider_account_id is for a provider_token only');
}

const noMethod = (id: string) => serviceError('resource_not_found', `No payment method ${id}`, { param: 'id' });

export function credentialRoutes(store: PaymentMethodStore, clock: Clock) {
  return {
    async addPaymentMethodCredential(req: AddPaymentMethodCredentialRequest) {
      const scope = requireScope(req.scope);
      const pm = await store.get(scope, req.paymentMethodId);
      if (!pm) throw noMethod(req.paymentMethodId);
      checkCredential(req);
      const c = newCredential(pm.id, clock.now(), req);
      let added;
      try {
        added = await store.addCredential(scope, c, MAX_PAYMENT_METHOD_CREDENTIALS);
      } catch (err) {
        if (!isSecondVault(err)) throw err;
        throw serviceError('limit_reached', `${pm.id} already holds a vault reference; remove it first`, { param: 'type' });
      }
      if (added === 'limit_reached') {
        throw toConnectError(limitReached('credentials', MAX_PAYMENT_METHOD_CREDENTIALS, 'remove one it no longer uses first.', pm.id));
      }
      return { credential: credentialToProto(c) };
    },

    async listPaymentMethodCredentials(req: { scope?: Parameters<typeof requireScope>[0]; paymentMethodId: string }) {
      const scope = requireScope(req.scope);
      const pm = await store.get(scope, req.paymentMethodId);
      if (!pm) throw noMethod(req.paymentMethodId);
      return { credentials: (await store.credentials(scope, pm.id)).map(credentialToProto) };
    },

    async removePaymentMethodCredential(req: { scope?: Parameters<typeof requireScope>[0]; paymentMethodId: string; id: string }) {
      const scope = requireScope(req.scope);
      const removed = await store.removeCredential(scope, req.paymentMethodId, req.id);
      if (!removed) throw serviceError('resource_not_found', `No credential ${req.id} on payment method ${req.paymentMethodId}`, { param: 'id' });
      if (removed === 'last') {
        throw serviceError('invalid_state_transition', `${req.id} is the only credential of ${req.paymentMethodId}; add another first`);
      }
      return { credential: credentialToProto(removed) };
    },
  };
}
