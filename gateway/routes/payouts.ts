import type { Client } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import type { PayoutsService } from '../../proto/gen/svc/payouts/v1/payouts_pb.js';
import {
  minorFromJson, payoutFreeTextAccountField, payoutJson, rawAccountNumberField, type CreatePayoutRequestJson,
} from '../../services/contract/index.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from './handlers.js';
import { isOneOf, PAYOUT_STATUSES } from '../../services/contract/enums.js';
import { idempotencyKeyFor } from '../edge/idempotency.js';
import { decodeCursor, page } from '../http/cursor.js';
import { refuseScenarioInLive } from '../../services/platform/request-guards.js';
import { invalidField } from '../../services/contract/index.js';
import { currencyOf } from './payments.js';

/**
 * Raw account numbers in a payout are refused like card data: before schema validation and
 * idempotency, so the value is never echoed, stored or logged, and a corrected body may reuse its
 * Idempotency-Key. Installed after the card-data check, so card numbers keep their own code. The
 * destination is held to the stricter rule (no eight digits in a row in a masked display or a
 * name); free text (description, reference, metadata) only to IBANs and labelled account numbers.
 */
export function installPayoutDestinationCheck(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config?.operationId !== 'createPayout') return;
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
    const d = (body as { destination?: unknown }).destination;
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    if (typeof d === 'object' && d !== null) {
      const { token, display, holder_name } = d as Record<string, unknown>;
      const field = rawAccountNumberField({ token: text(token), display: text(display), holderName: text(holder_name) });
      if (field) {
        throw invalidField(field,
          `${field} looks like a raw account number; send the provider's beneficiary token and a masked display.`);
      }
    }
    const free = payoutFreeTextAccountField(body as Record<string, unknown>);
    if (free !== undefined) {
      throw invalidField(free,
        `${free} holds a bank account number (an IBAN or a labelled account number); payouts never carry one in text.`);
    }
  });
}

function statusesOf(value: string | undefined): string[] {
  const statuses = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const bad = statuses.find((s) => !isOneOf(PAYOUT_STATUSES, s));
  if (bad !== undefined) throw invalidField('status', `status "${bad}" is not a payout status`);
  return statuses;
}

export function payoutHandlers(payouts: Client<typeof PayoutsService>): Handlers {
  return {
    async createPayout(request, reply, identity) {
      const body = request.body as CreatePayoutRequestJson;
      refuseScenarioInLive(identity.mode, body.test_scenario);
      const d = body.destination;
      const { payout } = await payouts.createPayout({
        scope: scopeOf(identity),
        amount: minorFromJson(body.amount),
        currency: currencyOf(body.currency),
        destination: {
          type: d.type, token: d.token, display: d.display, holderName: d.holder_name, country: d.country?.toUpperCase(),
        },
        description: body.description,
        reference: body.reference,
        metadata: body.metadata ?? {},
        testScenario: body.test_scenario,
        idempotencyKey: idempotencyKeyFor(request),
      });
      return reply.code(201).send(payoutJson(payout!));
    },

    async listPayouts(request, _reply, identity) {
      const q = request.query as { status?: string; limit: number; cursor?: string };
      const res = await payouts.listPayouts({
        scope: scopeOf(identity),
        statuses: statusesOf(q.status),
        limit: q.limit,
        startingAfter: q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'po'),
      });
      return page(res.payouts.map((p) => payoutJson(p) as { id: string }), res.hasMore);
    },

    async getPayout(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const { payout } = await payouts.getPayout({ scope: scopeOf(identity), id });
      return payoutJson(payout!);
    },

    async cancelPayout(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const { payout } = await payouts.cancelPayout({ scope: scopeOf(identity), id });
      return payoutJson(payout!);
    },
  };
}
