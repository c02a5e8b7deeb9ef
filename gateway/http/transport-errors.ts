import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, newId } from '../../services/shared/index.js';
import { sendError, toDomainError } from './errors.js';
import { endSpanWithResponse } from './tracing.js';

// Errors the HTTP layer raises before any route runs: Node's parser refusing the bytes (headers
// too large, a control byte in a header, a timed-out request) and the router refusing the URL. By
// default Fastify answers them in its own shape without x-request-id; here they leave in the
// contract's envelope. Node lets a server answer a parser error only with raw bytes on the socket,
// which is what clientErrorHandler writes.

/** Longest request target accepted; the rest of Node's 16 KiB header budget is for headers. */
export const MAX_URL_LENGTH = 8 * 1024;

function clientErrorOf(err: NodeJS.ErrnoException): DomainError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError('headers_too_large', 'The request line and headers are larger than 16 KiB.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new DomainError('request_timeout', 'The request was not received in time; send it again.');
    default:
      return new DomainError('malformed_request',
        `The request is not valid HTTP/1.1 (${String(err.code ?? 'unknown').replace(/[^\w]/g, '')}).`);
  }
}

/** The envelope as a complete raw HTTP response, for when there is no request object to reply to. */
export function rawErrorResponse(err: DomainError, requestId: string): string {
  const body = JSON.stringify({ error: { type: err.type, code: err.code, message: err.message }, request_id: requestId });
  return [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Fastify's clientErrorHandler: Node's 'clientError' event, answered in the envelope. */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset socket has nobody to answer (Node's documentation of 'clientError').
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const domain = clientErrorOf(err);
  const requestId = newId('req');
  this.log.debug({ err: { code: err.code, message: err.message }, request_id: requestId }, 'client error');
  // A response already under way on this socket cannot be followed by another one.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) socket.write(rawErrorResponse(domain, requestId));
  socket.destroy();
}

/** Fastify's frameworkErrors: a URL the router cannot decode, or a path parameter too long. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  // No hook runs for these requests: their span, if traced, ends here.
  endSpanWithResponse(request, reply);
  let domain: DomainError;
  if (error.code === 'FST_ERR_BAD_URL') {
    domain = new DomainError('malformed_request', 'The URL is not valid percent-encoded UTF-8.');
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    domain = new DomainError('url_too_long', 'A path segment of the URL is longer than any id.');
  } else {
    domain = toDomainError(error);
  }
  void sendError(reply, domain);
}

/** An onRequest check: a target longer than MAX_URL_LENGTH is refused before routing work is done. */
export function refuseLongUrl(url: string): void {
  if (url.length > MAX_URL_LENGTH) {
    throw new DomainError('url_too_long', `The URL is longer than ${MAX_URL_LENGTH} characters.`);
  }
}
