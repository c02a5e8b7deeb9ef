import type { Client } from '@connectrpc/connect';
import type { PaymentsService } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import { DomainError } from '../../services/contract/index.js';
import type { Handlers } from './handlers.js';

export function sandboxHandlers(payments: Client<typeof PaymentsService>): Handlers {
  return {
    async listTestScenarios(_request, _reply, identity) {
      if (identity.mode !== 'test') {
        throw new DomainError('forbidden', 'Sandbox scenarios are available to test keys only.');
      }
      // The payments part owns the demo providers, so its catalogue is the one they play.
      const { scenarios } = await payments.listTestScenarios({});
      return { data: scenarios.map((s) => ({ name: s.name, description: s.description })) };
    },
  };
}
