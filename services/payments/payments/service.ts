import type { ConnectRouter } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import {
  CancelPaymentRequestSchema, CapturePaymentRequestSchema, CreatePaymentRequestSchema, PaymentsService,
  type CreatePaymentRequest,
} from '../../../proto/gen/svc/payments/v1/payments_pb.js';
import { refuseUnsafeRequest } from '../../contract/index.js';
import { CAPTURE_METHODS, isOneOf, PAYMENT_METHOD_TYPES } from '../../contract/enums.js';
import { bindingOf } from '../../platform/idempotency-bindings.js';
import { pageLimit, refuseScenarioInLive, requireScope } from '../../platform/request-guards.js';
import { invalidField, serviceError } from '../../contract/index.js';
import { DemoConnector, PAYMENT_SCENARIOS } from '../../connectors/index.js';
import { CUSTOMER_OUTCOMES, type CustomerActions, type CustomerOutcome } from './customer-actions.js';
import type { Lifecycle } from './lifecycle.js';
import type { Orchestrator } from './orchestrator.js';
import { paymentToProto } from './to-proto.js';

/**
 * The service's own invariants. The gateway validates the full contract first; these checks
 * protect the service from internal gRPC callers that bypass it.
 */
function checkCreate(scope: Scope, req: CreatePaymentRequest): void {
  if (req.amount < 1n) throw invalidField('amount', 'amount must be at least 1');
  if (!/^[A-Z]{3}$/.test(req.currency)) throw invalidField('currency', 'currency must be a 3-letter ISO 4217 code');
  refuseUnsafeRequest(CreatePaymentRequestSchema, req);
  if (!req.paymentMethod || !isOneOf(PAYMENT_METHOD_TYPES, req.paymentMethod.type)) {
    throw invalidField('payment_method.type', 'payment_method.type is not a known payment method type');
  }
  if (req.captureMethod && !isOneOf(CAPTURE_METHODS, req.captureMethod)) {
    throw invalidField('capture_method', 'capture_method must be automatic or manual');
  }
  refuseScenarioInLive(scope.mode, req.testScenario);
  if (req.testScenario !== undefined && !DemoConnector.scenarios.has(req.testScenario)) {
    throw invalidField('test_scenario', `test_scenario "${req.testScenario}" is not available`);
  }
}

export function routes(orchestrator: Orchestrator, lifecycle: Lifecycle, customerActions: CustomerActions) {
  return (router: ConnectRouter) => {
    router.service(PaymentsService, {
      async createPayment(req) {
        const scope = requireScope(req.scope);
        checkCreate(scope, req);
        return { payment: paymentToProto(await orchestrator.create(scope, req)) };
      },
      async listPayments(req) {
        const scope = requireScope(req.scope);
        const limit = pageLimit(req.limit);
        const { payments, hasMore } = await orchestrator.list(scope, {
          statuses: req.statuses,
          currency: req.currency,
          country: req.country,
          paymentMethodType: req.paymentMethodType,
          reference: req.reference,
          search: req.search,
          createdFrom: req.createdFrom && timestampDate(req.createdFrom),
          createdTo: req.createdTo && timestampDate(req.createdTo),
          startingAfter: req.startingAfter,
          limit,
        });
        return { payments: payments.map(paymentToProto), hasMore };
      },
      async getPayment(req) {
        const payment = await orchestrator.get(requireScope(req.scope), req.id);
        if (!payment) throw serviceError('resource_not_found', `No payment ${req.id}`, { param: 'id' });
        return { payment: paymentToProto(payment) };
      },
      async getPaymentTimeline(req) {
        const events = await orchestrator.timeline(requireScope(req.scope), req.id);
        if (!events) throw serviceError('resource_not_found', `No payment ${req.id}`, { param: 'id' });
        return { paymentId: req.id, events };
      },
      async listTestScenarios() {
        return { scenarios: PAYMENT_SCENARIOS.map((s) => ({ name: s.name, description: s.description })) };
      },
      async capturePayment(req) {
        const scope = requireScope(req.scope);
        if (req.amount !== undefined && req.amount < 1n) {
          throw invalidField('amount', 'amount must be at least 1');
        }
        // Whether the amount fits the authorization is decided under the row lock.
        const binding = bindingOf(CapturePaymentRequestSchema, req);
        return { payment: paymentToProto(await lifecycle.capture(scope, req.id, req.amount, binding)) };
      },
      async cancelPayment(req) {
        const scope = requireScope(req.scope);
        if (req.reason !== undefined && req.reason.length > 500) {
          throw invalidField('reason', 'reason must be at most 500 characters');
        }
        const binding = bindingOf(CancelPaymentRequestSchema, req);
        return { payment: paymentToProto(await lifecycle.cancel(scope, req.id, req.reason, binding)) };
      },
      // No scope: the hosted page's token is the authority (the customer's browser has no API key).
      // An empty outcome only reads what the page shows; it changes nothing.
      async completeCustomerAction(req) {
        if (req.outcome !== '' && !(CUSTOMER_OUTCOMES as readonly string[]).includes(req.outcome)) {
          throw invalidField('outcome', 'outcome must be approve, decline or expire');
        }
        const payment = req.outcome === ''
          ? await customerActions.view(req.actionToken)
          : await customerActions.complete(req.actionToken, req.outcome as CustomerOutcome);
        return { payment: paymentToProto(payment), returnUrl: payment.returnUrl ?? undefined };
      },
    });
  };
}
