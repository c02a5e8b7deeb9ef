import type { Client } from '@connectrpc/connect';
import type { PaymentMethodsService } from '../../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { paymentMethodCredentialJson, paymentMethodJson } from '../../services/contract/index.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from './handlers.js';

interface AddCredentialBody {
  type: string;
  token: string;
  provider_code?: string;
  provider_account_id?: string;
  vault?: string;
}

interface CreatePaymentMethodBody {
  type: string;
  provider_token: string;
  provider_code?: string;
  customer?: { id?: string; external_id?: string; email?: string; name?: string; country?: string };
  display?: Record<string, string>;
}

export function paymentMethodHandlers(paymentMethods: Client<typeof PaymentMethodsService>): Handlers {
  return {
    async createPaymentMethod(request, reply, identity) {
      const body = request.body as CreatePaymentMethodBody;
      const { paymentMethod } = await paymentMethods.createPaymentMethod({
        scope: scopeOf(identity),
        type: body.type,
        providerToken: body.provider_token,
        providerCode: body.provider_code,
        customer: body.customer && {
          id: body.customer.id,
          externalId: body.customer.external_id,
          email: body.customer.email,
          name: body.customer.name,
          country: body.customer.country?.toUpperCase(),
        },
        display: body.display ?? {},
      });
      return reply.code(201).send(paymentMethodJson(paymentMethod!));
    },

    async getPaymentMethod(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const { paymentMethod } = await paymentMethods.getPaymentMethod({ scope: scopeOf(identity), id });
      return paymentMethodJson(paymentMethod!);
    },

    async addPaymentMethodCredential(request, reply, identity) {
      const { id } = request.params as { id: string };
      const body = request.body as AddCredentialBody;
      const { credential } = await paymentMethods.addPaymentMethodCredential({
        scope: scopeOf(identity), paymentMethodId: id, type: body.type, token: body.token,
        providerCode: body.provider_code, providerAccountId: body.provider_account_id, vault: body.vault,
      });
      return reply.code(201).send(paymentMethodCredentialJson(credential!));
    },

    async listPaymentMethodCredentials(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const { credentials } = await paymentMethods.listPaymentMethodCredentials({ scope: scopeOf(identity), paymentMethodId: id });
      return { payment_method_id: id, data: credentials.map(paymentMethodCredentialJson) };
    },

    async removePaymentMethodCredential(request, _reply, identity) {
      const { id, credential } = request.params as { id: string; credential: string };
      const removed = await paymentMethods.removePaymentMethodCredential({ scope: scopeOf(identity), paymentMethodId: id, id: credential });
      return paymentMethodCredentialJson(removed.credential!);
    },
  };
}
