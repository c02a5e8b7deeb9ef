import type { FastifyInstance } from 'fastify';
import { identityOf } from '../auth/identity.js';
import { ErrorEnvelope } from '../../services/contract/resources.js';
import { OPERATIONS, type OperationId } from '../../services/contract/operations.js';
import type { Handlers } from '../routes/handlers.js';

/**
 * Declares every operation of the table with its handler on the /v1 scope (whose prefix the table's
 * paths begin with); a missing handler is a startup error. Validation uses the root's compilers
 * (gateway/http/validation.ts).
 */
export function registerOperations(api: FastifyInstance, handlers: Handlers): void {
  const missing = OPERATIONS.filter((op) => !handlers[op.id]).map((op) => op.id);
  if (missing.length > 0) throw new Error(`no handler for the contract operations: ${missing.join(', ')}`);
  for (const op of OPERATIONS) {
    if (!op.path.startsWith(`${api.prefix}/`)) throw new Error(`${op.path} is outside the scope ${api.prefix}`);
    const handler = handlers[op.id]!;
    api.route({
      method: op.method,
      url: op.path.slice(api.prefix.length),
      config: { idempotent: op.idempotent === true, operationId: op.id },
      ...(op.bodyLimit && { bodyLimit: op.bodyLimit }),
      schema: {
        ...(op.body && { body: op.body }),
        ...(op.query && { querystring: op.query }),
        ...(op.params && { params: op.params }),
        response: { [op.success.status]: op.success.schema, '4xx': ErrorEnvelope, '5xx': ErrorEnvelope },
      },
      // Card data and text rules are checked by the scope's preValidation hooks (gateway/edge/card-data.ts,
      // gateway/http/text-rules.ts), which run before this one.
      preValidation: async (request) => {
        if (op.body && op.bodyOptional && request.body === undefined) request.body = {};
      },
      handler: (request, reply) => handler(request, reply, identityOf(request)),
    });
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Marked (idem) in the contract. */
    idempotent?: boolean;
    operationId?: OperationId;
  }
}
