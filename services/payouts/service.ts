import type { ConnectRouter } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import { CreatePayoutRequestSchema, PayoutsService, type CreatePayoutRequest } from '../../proto/gen/svc/payouts/v1/payouts_pb.js';
import { rawAccountNumberField, refuseUnsafeRequest } from '../contract/index.js';
import { DESTINATION_TYPES, isOneOf, PAYOUT_STATUSES } from '../contract/enums.js';
import type { Clock } from '../platform/clock.js';
import { bindingOf } from '../platform/idempotency-bindings.js';
import { pageLimit, refuseScenarioInLive, requireScope } from '../platform/request-guards.js';
import { invalidField, serviceError } from '../contract/index.js';
import { resultOf } from './licensed-payouts.js';
import { payoutToProto } from './model.js';
import type { Dispatcher } from './dispatcher.js';
import type { Payouts } from './payouts.js';
import { PAYOUT_SCENARIO_NAMES } from './providers.js';



/**
 * The service's own invariants. The gateway validates the full contract first; these checks
 * protect the service from internal gRPC callers that bypass it, raw account numbers included.
 */
function checkCreate(scope: Scope, req: CreatePayoutRequest): void {
  if (req.amount < 1n) throw invalidField('amount', 'amount must be at least 1');
  if (!/^[A-Z]{3}$/.test(req.currency)) throw invalidField('currency', 'currency must be a 3-letter ISO 4217 code');
  refuseUnsafeRequest(CreatePayoutRequestSchema, req);
  const d = req.destination;
  if (!d || !isOneOf(DESTINATION_TYPES, d.type)) throw invalidField('destination.type', 'destination.type must be bank_account, wallet or card_token');
  if (!d.display) throw invalidField('destination.display', 'destination.display (a masked value) is required');
  if (d.country !== undefined && !/^[A-Z]{2}$/.test(d.country)) throw invalidField('destination.country', 'destination.country must be 2 letters');
  const raw = rawAccountNumberField(d);
  if (raw) throw invalidField(raw, `${raw} looks like a raw account number; send the provider's beneficiary token and a masked display`);
  refuseScenarioInLive(scope.mode, req.testScenario);
  if (req.testScenario !== undefined && !PAYOUT_SCENARIO_NAMES.has(req.testScenario)) {
    throw invalidField('test_scenario', `test_scenario "${req.testScenario}" is not a payout scenario`);
  }
}

export function routes(payouts: Payouts, dispatcher: Dispatcher, clock: Clock) {
  return (router: ConnectRouter) => {
    router.service(PayoutsService, {
      async createPayout(req) {
        const scope = requireScope(req.scope);
        checkCreate(scope, req);
        const d = req.destination!;
        const payout = await payouts.create(scope, {
          amount: req.amount,
          currency: req.currency,
          destination: {
            type: d.type, token: d.token ?? null, display: d.display, holderName: d.holderName ?? null, country: d.country ?? null,
          },
          description: req.description ?? null,
          reference: req.reference ?? null,
          metadata: req.metadata ?? {},
          testScenario: req.testScenario ?? null,
        }, bindingOf(CreatePayoutRequestSchema, req));
        return { payout: payoutToProto(payout) };
      },
      async getPayout(req) {
        const payout = await payouts.get(requireScope(req.scope), req.id);
        if (!payout) throw serviceError('resource_not_found', `No payout ${req.id}`, { param: 'id' });
        return { payout: payoutToProto(payout) };
      },
      async listPayouts(req) {
        const scope = requireScope(req.scope);
        const limit = pageLimit(req.limit);
        const unknown = req.statuses.find((s) => !isOneOf(PAYOUT_STATUSES, s));
        if (unknown !== undefined) throw invalidField('status', `status "${unknown}" is not a payout status`);
        const { payouts: list, hasMore } = await payouts.list(scope, {
          statuses: req.statuses, startingAfter: req.startingAfter, limit,
        });
        return { payouts: list.map(payoutToProto), hasMore };
      },
      async cancelPayout(req) {
        return { payout: payoutToProto(await payouts.cancel(requireScope(req.scope), req.id)) };
      },
      async dispatchPayouts(req) {
        return { sent: await dispatcher.dispatch(req.asOf ? timestampDate(req.asOf) : clock.now()) };
      },
      // No scope: the account the provider sent it to decides whose payout it may touch.
      async noteProviderPayout(req) {
        if (!/^pac_\w{1,80}$/.test(req.providerAccountId)) throw invalidField('provider_account_id', 'provider_account_id must be a provider account id (pac_…)');
        const noted = await dispatcher.noted(req.providerAccountId, req.payoutId ?? null, resultOf(req.answer));
        return { effect: noted.effect, payoutId: 'payout' in noted ? noted.payout.id : undefined };
      },
    });
  };
}
