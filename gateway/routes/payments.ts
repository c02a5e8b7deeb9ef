import type { Client } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import type { JsonObject } from '@bufbuild/protobuf';
import type { PaymentsService } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import { paymentJson } from '../../services/shared/contract/index.js';
import { DomainError } from '../../services/shared/index.js';
import { scopeOf } from '../auth/authenticate.js';

const PAYMENT_METHOD_TYPES = ['card', 'bank_transfer', 'qr', 'open_banking', 'wallet', 'instant', 'local'];
const SCENARIOS = ['success', 'failover', 'timeout', 'timeout_recovered', 'unavailable', 'hard_decline', 'soft_decline', 'all_fail'];

const string = { type: 'string' } as const;
const country = { type: 'string', minLength: 2, maxLength: 2 } as const;

export const createPaymentBody = {
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency', 'payment_method'],
  properties: {
    amount: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
    payment_method: { type: ['string', 'object'] },
    capture_method: { type: 'string', enum: ['automatic', 'manual'] },
    country,
    customer: {
      type: 'object',
      additionalProperties: false,
      properties: { id: string, external_id: string, email: { type: 'string', format: 'email' }, name: string, country },
    },
    description: { type: 'string', maxLength: 500 },
    reference: { type: 'string', maxLength: 128 },
    return_url: { type: 'string', format: 'uri' },
    metadata: { type: 'object', maxProperties: 50 },
    test_scenario: { type: 'string', enum: SCENARIOS },
    device: {
      type: 'object',
      additionalProperties: false,
      properties: { ip: string, user_agent: string, fingerprint: string },
    },
  },
} as const;

interface CreatePaymentBody {
  amount: number;
  currency: string;
  payment_method: string | Record<string, unknown>;
  capture_method?: string;
  country?: string;
  customer?: { id?: string; external_id?: string; email?: string; name?: string; country?: string };
  description?: string;
  reference?: string;
  return_url?: string;
  metadata?: JsonObject;
  test_scenario?: string;
  device?: { ip?: string; user_agent?: string; fingerprint?: string };
}

/** `payment_method` is a type name or `{type, token?, id?}`; its errors name the exact field. */
function paymentMethodOf(value: CreatePaymentBody['payment_method']) {
  const bad = (param: string, message: string) => new DomainError('validation_error', message, { param });
  if (typeof value === 'string') {
    if (!PAYMENT_METHOD_TYPES.includes(value)) throw bad('payment_method', 'payment_method is not a known payment method type');
    return { type: value };
  }
  for (const key of Object.keys(value)) {
    if (!['type', 'token', 'id'].includes(key)) throw bad(`payment_method.${key}`, `payment_method.${key} is not a known parameter`);
  }
  if (value.type === undefined) throw bad('payment_method.type', 'payment_method.type is required');
  if (typeof value.type !== 'string' || !PAYMENT_METHOD_TYPES.includes(value.type)) {
    throw bad('payment_method.type', 'payment_method.type is not a known payment method type');
  }
  if (value.token !== undefined && typeof value.token !== 'string') throw bad('payment_method.token', 'payment_method.token must be a string');
  if (value.id !== undefined && (typeof value.id !== 'string' || !value.id.startsWith('pm_'))) {
    throw bad('payment_method.id', 'payment_method.id must be a stored payment method id (pm_...)');
  }
  return { type: value.type, token: value.token as string | undefined, id: value.id as string | undefined };
}

export function paymentRoutes(app: FastifyInstance, payments: Client<typeof PaymentsService>): void {
  app.post<{ Body: CreatePaymentBody }>('/v1/payments', {
    schema: { body: createPaymentBody },
    config: { idempotent: true },
  }, async (request, reply) => {
    const identity = request.identity!;
    const body = request.body;
    if (body.test_scenario !== undefined && identity.mode === 'live') {
      throw new DomainError('test_scenario_not_allowed', 'test_scenario is only accepted with test keys.', {
        param: 'test_scenario',
      });
    }
    const { payment } = await payments.createPayment({
      scope: scopeOf(identity),
      amount: BigInt(body.amount),
      currency: body.currency.toUpperCase(),
      paymentMethod: paymentMethodOf(body.payment_method),
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
    });
    return reply.code(201).send(paymentJson(payment!));
  });

  app.get<{ Params: { id: string } }>('/v1/payments/:id', async (request) => {
    const { payment } = await payments.getPayment({ scope: scopeOf(request.identity!), id: request.params.id });
    return paymentJson(payment!);
  });
}
