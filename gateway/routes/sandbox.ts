import { DomainError } from '../../services/shared/index.js';
import type { Handlers } from '../contract/index.js';

export function sandboxHandlers(): Handlers {
  return {
    async listTestScenarios(request) {
      if (request.identity!.mode !== 'test') {
        throw new DomainError('forbidden', 'Sandbox scenarios are available to test keys only.');
      }
      // The scenario catalogue arrives with the demo providers' failover behaviour (issue 4).
      throw new DomainError('not_implemented', 'GET /v1/test/scenarios is not available yet.');
    },
  };
}
