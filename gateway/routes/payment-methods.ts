import type { Client } from '@connectrpc/connect';
import type { PaymentMethodsService } from '../../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { paymentMethodJson } from '../../services/contract/index.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from '../api/register.js';

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
  };
}
