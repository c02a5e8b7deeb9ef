import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, fromConnectError } from '../../services/contract/index.js';
import { CONTROL_CHARACTERS_PROBLEM, NO_CONTROL_CHARACTERS } from '../../services/contract/control-characters.js';
import { ConnectError } from '@connectrpc/connect';
import { DATABASE_UNAVAILABLE, databaseUnavailable } from '../../services/platform/db-errors.js';
import { keyedFailure } from '../edge/idempotency.js';
import { allowedValuesMessage } from './allowed-values.js';

/**
 * The contract error each error reply was sent with: its code for the gateway's metrics
 * (http/metrics.ts), the whole error for the request log (edge/request-log.ts).
 */
const sentErrors = new WeakMap<FastifyReply, DomainError>();

export function errorCodeOf(reply: FastifyReply): string | undefined {
  return sentErrors.get(reply)?.code;
}

export function errorSentBy(reply: FastifyReply): DomainError | undefined {
  return sentErrors.get(reply);
}

/** Writes the contract's error envelope; status and type come from the one registry. */
export function sendError(reply: FastifyReply, err: DomainError): FastifyReply {
  sentErrors.set(reply, err);
  const error: Record<string, unknown> = { type: err.type, code: err.code, message: err.message };
  if (err.options.param) error.param = err.options.param;
  if (err.options.details !== undefined) error.details = err.options.details;
  return reply.code(err.status).send({ error, request_id: reply.request.id });
}

/** `/customer/country` plus a missing `email` becomes `customer.email`. */
function paramOf(v: NonNullable<FastifyError['validation']>[number]): string | undefined {
  const path = v.instancePath.split('/').filter(Boolean);
  const params = v.params as Record<string, unknown>;
  if (typeof params.missingProperty === 'string') path.push(params.missingProperty);
  if (typeof params.additionalProperty === 'string') path.push(params.additionalProperty);
  return path.length > 0 ? path.join('.') : undefined;
}

function validationMessage(v: NonNullable<FastifyError['validation']>[number], param: string | undefined): string {
  const params = v.params as Record<string, unknown>;
  if (typeof params.additionalProperty === 'string') return `${param} is not a known parameter`;
  if (typeof params.missingProperty === 'string') return `${param} is required`;
  // propertyNames (metadata keys): the rule is about the keys, not the object.
  if ((v as { propertyName?: unknown }).propertyName !== undefined) return `${param} keys ${v.message ?? 'are invalid'}`;
  if (params.pattern === NO_CONTROL_CHARACTERS) return `${param} ${CONTROL_CHARACTERS_PROBLEM}`;
  // Every enumeration: the values it takes and the closest to what was sent (the validator is verbose for `data`).
  if (Array.isArray(params.allowedValues)) return allowedValuesMessage(param ?? 'body', params.allowedValues, (v as { data?: unknown }).data);
  return `${param ?? 'body'} ${v.message ?? 'is invalid'}`;
}

/** Everything that goes wrong in a request leaves through here, in the envelope. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof ConnectError) return fromConnectError(err);
  // The gateway's own Postgres (keys, idempotency, rate limits) down, full or unreachable.
  if (databaseUnavailable(err)) return new DomainError('service_unavailable', DATABASE_UNAVAILABLE);
  const fe = err as FastifyError;
  if (fe.validation && fe.validation.length > 0) {
    // With anyOf (payment_method: a type name or an object) ajv reports each branch; the error
    // reaching deepest into the request names the field the client got wrong.
    const ranked = fe.validation.map((v) => ({ v, param: paramOf(v) }));
    const best = ranked.reduce((a, b) => ((b.param?.length ?? 0) > (a.param?.length ?? 0) ? b : a));
    const allowed = (best.v.params as { allowedValues?: unknown }).allowedValues;
    return new DomainError('validation_error', validationMessage(best.v, best.param), {
      param: best.param, ...(Array.isArray(allowed) && { details: { allowed_values: allowed } }),
    });
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new DomainError('invalid_json', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new DomainError('unsupported_media_type', 'Send the request body as application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('body_too_large', 'The request body is too large.');
  }
  if (fe instanceof SyntaxError && fe.statusCode === 400) {
    return new DomainError('invalid_json', 'The request body is not valid JSON.');
  }
  // Any other refusal Fastify raises about the request itself is the client's, never a 500.
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new DomainError('malformed_request', 'The request could not be read as sent.');
  }
  return new DomainError('internal_error', 'An internal error occurred.');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const cause = toDomainError(err);
    if (cause.code === 'internal_error' || cause.code === 'service_unavailable') {
      request.log.error({ err }, 'request failed');
    }
    const domain = keyedFailure(request, cause);
    // Both are transient: the client is told when to come back.
    if (domain.code === 'idempotency_in_progress' || domain.code === 'service_unavailable') reply.header('retry-after', '1');
    return sendError(reply, domain);
  });
  app.setNotFoundHandler(routeNotFound);
}

/** The 404 of the root and of the /v1 scope, whose own hooks (authentication first) run before it. */
export function routeNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, new DomainError('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}`));
}

