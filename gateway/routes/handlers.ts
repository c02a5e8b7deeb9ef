// What a /v1 route file offers: the handlers of its operations, keyed by the contract's operation
// ids; gateway/api/ declares them all on the /v1 scope.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperationId } from '../../services/contract/operations.js';
import type { Identity } from '../store/index.js';

/** A /v1 operation's handler: it runs in the /v1 scope, so the caller's identity is always known. */
export type Handler = (request: FastifyRequest<any>, reply: FastifyReply, identity: Identity) => Promise<unknown>;
/** Each route file offers the handlers of its operations; together they must cover the table. */
export type Handlers = Partial<Record<OperationId, Handler>>;
