import type { ConnectRouter } from '@connectrpc/connect';
import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import {
  CreateRefundRequestSchema, RefundsService, type CreateRefundRequest,
} from '../../../proto/gen/svc/payments/v1/refunds_pb.js';
import { refuseUnsafeRequest } from '../../contract/index.js';
import { bindingOf } from '../../platform/idempotency-bindings.js';
import { refuseScenarioInLive, requireScope } from '../../platform/request-guards.js';
import { invalidField, serviceError } from '../../contract/index.js';
import { REFUND_SCENARIOS, refundToProto, type Refunds } from './refunds.js';

/**
 * The service's own invariants. The gateway validates the full contract first; these checks
 * protect the service from internal gRPC callers that bypass it.
 */
function checkCreate(scope: Scope, req: CreateRefundRequest): void {
  if (req.amount !== undefined && req.amount < 1n) throw invalidField('amount', 'amount must be at least 1');
  if (req.reason !== undefined && req.reason.length > 500) throw invalidField('reason', 'reason must be at most 500 characters');
  refuseUnsafeRequest(CreateRefundRequestSchema, req);
  refuseScenarioInLive(scope.mode, req.testScenario);
  if (req.testScenario !== undefined && !REFUND_SCENARIOS.has(req.testScenario)) {
    throw invalidField('test_scenario', `test_scenario "${req.testScenario}" is not a refund scenario`);
  }
}

export function refundRoutes(refunds: Refunds) {
  return (router: ConnectRouter) => {
    router.service(RefundsService, {
      async createRefund(req) {
        const scope = requireScope(req.scope);
        checkCreate(scope, req);
        const refund = await refunds.create(scope, {
          paymentId: req.paymentId,
          amount: req.amount,
          reason: req.reason,
          metadata: req.metadata ?? {},
          testScenario: req.testScenario,
        }, bindingOf(CreateRefundRequestSchema, req));
        return { refund: refundToProto(refund) };
      },
      async getRefund(req) {
        const refund = await refunds.get(requireScope(req.scope), req.id);
        if (!refund) throw serviceError('resource_not_found', `No refund ${req.id}`, { param: 'id' });
        return { refund: refundToProto(refund) };
      },
      async listRefunds(req) {
        const list = await refunds.listForPayment(requireScope(req.scope), req.paymentId);
        if (!list) throw serviceError('resource_not_found', `No payment ${req.paymentId}`, { param: 'id' });
        return { refunds: list.map(refundToProto) };
      },
    });
  };
}
