import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorEnvelope } from './resources.js';
import { OPERATIONS, type OperationId } from './operations.js';

export type Handler = (request: FastifyRequest<any>, reply: FastifyReply) => Promise<unknown>;
/** Each route file offers the handlers of its operations; together they must cover the table. */
export type Handlers = Partial<Record<OperationId, Handler>>;

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

function ajv(options: Options): Ajv {
  return addFormats(new Ajv({ strict: true, allowUnionTypes: true, allErrors: false, useDefaults: true, ...options }));
}

// A body keeps its JSON types ("100" is not an amount); query strings are text and are coerced.
const bodyAjv = ajv({ coerceTypes: false });
const queryAjv = ajv({ coerceTypes: true });

/** Declares every operation of the table on the app with its handler; a missing one is a startup error. */
export function registerOperations(app: FastifyInstance, handlers: Handlers): void {
  const missing = OPERATIONS.filter((op) => !handlers[op.id]).map((op) => op.id);
  if (missing.length > 0) throw new Error(`no handler for the contract operations: ${missing.join(', ')}`);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object),
  );
  for (const op of OPERATIONS) {
    app.route({
      method: op.method,
      url: op.path,
      config: { idempotent: op.idempotent === true, operationId: op.id },
      schema: {
        ...(op.body && { body: op.body }),
        ...(op.query && { querystring: op.query }),
        ...(op.params && { params: op.params }),
        response: { [op.success.status]: op.success.schema, '4xx': ErrorEnvelope, '5xx': ErrorEnvelope },
      },
      // Card data and text rules are checked by app-wide preValidation hooks (gateway/edge/card-data.ts,
      // gateway/http/text-rules.ts), which run before this one.
      preValidation: async (request) => {
        if (op.body && op.bodyOptional && request.body === undefined) request.body = {};
      },
      handler: handlers[op.id]!,
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
