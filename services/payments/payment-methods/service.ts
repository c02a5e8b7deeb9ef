import type { ConnectRouter } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import {
  PaymentMethodSchema, PaymentMethodsService, type CreatePaymentMethodRequest, type PaymentMethod,
} from '../../../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { credentialRoutes, newCredential } from './credentials.js';
import type { PaymentMethodInput } from '../../../proto/gen/svc/payments/v1/payments_pb.js';
import { isOneOf, PAYMENT_METHOD_TYPES } from '../../contract/enums.js';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import { requireScope } from '../../platform/request-guards.js';
import { invalidField, serviceError } from '../../contract/index.js';
import type { PaymentMethodRecord, PaymentMethodStore } from './store.js';

/** The proto shape; it has no field for the provider token, so the token cannot leak through it. */
export function paymentMethodToProto(pm: PaymentMethodRecord): PaymentMethod {
  return create(PaymentMethodSchema, {
    id: pm.id,
    type: pm.type,
    customerId: pm.customerId ?? undefined,
    display: pm.display,
    status: pm.status,
    createdAt: timestampFromDate(pm.createdAt),
  });
}

// Only what the merchant sent: proto messages also carry $typeName and unset fields.
function sent<T extends object>(m: T | undefined): Record<string, string> | null {
  if (!m) return null;
  return Object.fromEntries(Object.entries(m).filter(([k, v]) => !k.startsWith('$') && typeof v === 'string'));
}

/**
 * The stored method a payment names, checked before anything is planned or written. The
 * gateway's schema already requires the `pm_` prefix; here the method must belong to the key's
 * project and mode, be active, and be of the type the payment says. A method of another scope and
 * one that does not exist get the same 422 on `payment_method.id`, so a key learns nothing about
 * ids outside its scope; 422 rather than 404 because the URL (POST /v1/payments) is not what is
 * missing, a field of the body is wrong.
 */
export async function resolveStoredMethod(
  store: PaymentMethodStore, scope: Scope, input: PaymentMethodInput | undefined,
): Promise<PaymentMethodRecord | undefined> {
  if (!input?.id) return undefined;
  const pm = await store.get(scope, input.id);
  if (!pm || pm.status !== 'active') {
    throw invalidField('payment_method.id', `payment_method.id: no active payment method ${input.id} in this project and mode`);
  }
  if (pm.type !== input.type) {
    throw invalidField('payment_method.type', `payment_method.type is "${input.type}" but ${pm.id} is a stored ${pm.type} method`);
  }
  return pm;
}

export function paymentMethodRoutes(store: PaymentMethodStore, clock: Clock) {
  const checkCreate = (req: CreatePaymentMethodRequest) => {
    if (!isOneOf(PAYMENT_METHOD_TYPES, req.type)) throw invalidField('type', 'type is not a known payment method type');
    if (!req.providerToken) throw invalidField('provider_token', 'provider_token is required');
    if (req.customer?.country !== undefined && !/^[A-Z]{2}$/.test(req.customer.country)) {
      throw invalidField('customer.country', 'customer.country must be a 2-letter country code');
    }
  };

  return (router: ConnectRouter) => {
    router.service(PaymentMethodsService, {
      async createPaymentMethod(req) {
        const scope = requireScope(req.scope);
        checkCreate(req);
        const at = clock.now();
        const pm: PaymentMethodRecord = {
          id: newId('pm', at),
          merchantId: scope.merchantId,
          projectId: scope.projectId,
          mode: scope.mode,
          type: req.type,
          providerCode: req.providerCode ?? null,
          customerId: req.customer?.id ?? null,
          customer: sent(req.customer),
          display: { ...req.display },
          status: 'active',
          networkTransactionId: null,
          createdAt: at,
        };
        // The token it is created with is its first credential, bound to provider_code when given.
        await store.insert(pm, newCredential(pm.id, at, {
          type: 'provider_token', token: req.providerToken, providerCode: req.providerCode,
        }));
        return { paymentMethod: paymentMethodToProto(pm) };
      },

      async getPaymentMethod(req) {
        const pm = await store.get(requireScope(req.scope), req.id);
        if (!pm) throw serviceError('resource_not_found', `No payment method ${req.id}`, { param: 'id' });
        return { paymentMethod: paymentMethodToProto(pm) };
      },

      ...credentialRoutes(store, clock),
    });
  };
}
