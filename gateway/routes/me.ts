import type { Handlers } from './handlers.js';

export function meHandlers(): Handlers {
  return {
    async getMe(_request, _reply, id) {
      return {
        merchant: { id: id.merchant.id, name: id.merchant.name },
        project: { id: id.project.id, name: id.project.name },
        mode: id.mode,
        api_key: { id: id.apiKey.id, prefix: id.apiKey.prefix, name: id.apiKey.name },
      };
    },
  };
}
