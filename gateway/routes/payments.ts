import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { PaymentsService } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import { minorFromJson, paymentJson, type CreatePaymentRequestJson } from '../../services/contract/index.js';
import { refuseScenarioInLive } from '../../services/platform/request-guards.js';
import { invalidField } from '../../services/contract/index.js';
import { scopeOf } from '../auth/authenticate.js';
import { CURRENCIES } from '../../services/contract/currencies.js';
import type { Handlers } from './handlers.js';
import { idempotencyKeyFor } from '../edge/idempotency.js';
import { isOneOf, PAYMENT_STATUSES } from '../../services/contract/enums.js';
import { decodeCursor, page } from '../http/cursor.js';

interface ListQuery {
  status?: string;
  currency?: string;
  country?: string;
  payment_method?: string;
  reference?: string;
  search?: string;
  from?: string;
  to?: string;
  limit: number;
  cursor?: string;
}

/** Upper-cased ISO 4217 code, or a 422 naming the field. */
export function currencyOf(value: string, param = 'currency'): string {
  const code = value.toUpperCase();
  if (!CURRENCIES.has(code)) throw invalidField(param, `${param} must be an ISO 4217 currency code`);
  return code;
}

function statusesOf(value: string | undefined): string[] {
  if (value === undefined) return [];
  const statuses = value.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = statuses.find((s) => !isOneOf(PAYMENT_STATUSES, s));
  if (bad !== undefined) throw invalidField('status', `status "${bad}" is not a payment status`);
  return statuses;
}

export function paymentHandlers(payments: Client<typeof PaymentsService>): Handlers {
  return {
    async createPayment(request, reply, identity) {
      const body = request.body as CreatePaymentRequestJson;
      refuseScenarioInLive(identity.mode, body.test_scenario);
      const method = typeof body.payment_method === 'string' ? { type: body.payment_method } : body.payment_method;
      const { payment } = await payments.createPayment({
        scope: scopeOf(identity),
        amount: minorFromJson(body.amount),
        currency: currencyOf(body.currency),
        paymentMethod: { type: method.type, token: method.token, id: method.id, providerCode: method.provider_code },
        captureMethod: body.capture_method ?? 'automatic',
        country: body.country?.toUpperCase(),
        customer: body.customer && {
          id: body.customer.id,
          externalId: body.customer.external_id,
          email: body.customer.email,
          name: body.customer.name,
          country: body.customer.country?.toUpperCase(),
        },
        description: body.description,
        reference: body.reference,
        returnUrl: body.return_url,
        metadata: body.metadata ?? {},
        testScenario: body.test_scenario,
        device: body.device && { ip: body.device.ip, userAgent: body.device.user_agent, fingerprint: body.device.fingerprint },
        idempotencyKey: idempotencyKeyFor(request),
        merchantInitiated: body.merchant_initiated,
      });
      return reply.code(201).send(paymentJson(payment!));
    },

    async listPayments(request, _reply, identity) {
      const q = request.query as ListQuery;
      const res = await payments.listPayments({
        scope: scopeOf(identity),
        statuses: statusesOf(q.status),
        currency: q.currency && currencyOf(q.currency),
        country: q.country?.toUpperCase(),
        paymentMethodType: q.payment_method,
        reference: q.reference,
        search: q.search,
        createdFrom: q.from ? timestampFromDate(new Date(q.from)) : undefined,
        createdTo: q.to ? timestampFromDate(new Date(q.to)) : undefined,
        limit: q.limit,
        startingAfter: q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'pay'),
      });
      return page(res.payments.map((p) => paymentJson(p) as { id: string }), res.hasMore);
    },

    async getPayment(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const { payment } = await payments.getPayment({ scope: scopeOf(identity), id });
      return paymentJson(payment!);
    },
  };
}
