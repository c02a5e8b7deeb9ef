import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { newId } from '../../services/platform/ids.js';
import { DomainError, MAX_HEADER_BYTES } from '../../services/contract/index.js';
import { sendError, toDomainError } from './errors.js';
import { endSpanWithResponse } from './tracing.js';

// Errors the HTTP layer raises before any route runs: Node's parser refusing the bytes (headers
// too large, a control byte in a header, a timed-out request) and the router refusing the URL. By
// default Fastify answers them in its own shape without x-request-id; here they leave in the
// contract's envelope. Node lets a server answer a parser error only with raw bytes on the socket,
// which is what clientErrorHandler writes.

/** Longest request target accepted; the rest of the 16 KiB header budget is for headers. */
export const MAX_URL_LENGTH = 8 * 1024;


/**
 * Header fields per request (Apache's default). Past 1000 Node keeps the first 1000 and drops the
 * rest without a word, so a request could lose the header that mattered: refused instead.
 */
export const MAX_HEADER_FIELDS = 100;

const HEADERS_TOO_LARGE = 'The request line and headers are larger than 16 KiB.';

function clientErrorOf(err: NodeJS.ErrnoException): DomainError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError('headers_too_large', HEADERS_TOO_LARGE);
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
  // A reset socket has nobody to answer (Node's documentation of 'clientError'); one already
  // answered is reported again by the parser for each further chunk while it lingers.
  if (err.code === 'ECONNRESET' || socket.destroyed || lingering.has(socket)) return;
  const domain = clientErrorOf(err);
  const requestId = newId('req');
  this.log.debug({ err: { code: err.code, message: err.message }, request_id: requestId }, 'client error');
  // A response already under way on this socket cannot be followed by another one.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  socket.end(rawErrorResponse(domain, requestId));
  lingerThenClose(socket);
}

/** How long, and how many more bytes, the rest of a refused request is read and dropped. */
const LINGER_MS = 5_000;
const LINGER_BYTES = 1024 * 1024;
const lingering = new WeakSet<Socket>();

/**
 * Closing a socket whose client is still sending (the rest of a 70 KB header) makes the kernel
 * answer with a reset, and a client that reads only after sending loses the 431 with it. So the
 * answer is followed by our FIN and the rest of the request is read and dropped until the client
 * closes its side, within a time and byte budget a misbehaving client cannot stretch.
 */
function lingerThenClose(socket: Socket): void {
  lingering.add(socket);
  let dropped = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) socket.destroy();
  });
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
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

/**
 * An onRequest check: a target longer than MAX_URL_LENGTH, or a head over the header limits, is
 * refused before routing work is done. Node's parser counts only names and values against its
 * limit; here the separators and line ends count too, as they were sent.
 */
export function refuseOversizedHead(request: IncomingMessage): void {
  const url = request.url ?? '';
  if (url.length > MAX_URL_LENGTH) {
    throw new DomainError('url_too_long', `The URL is longer than ${MAX_URL_LENGTH} characters.`);
  }
  const raw = request.rawHeaders;
  if (raw.length / 2 > MAX_HEADER_FIELDS) {
    throw new DomainError('headers_too_large', `The request has more than ${MAX_HEADER_FIELDS} header fields.`);
  }
  // "METHOD SP target SP HTTP/1.1 CRLF", each "name: value CRLF", the empty line.
  let bytes = (request.method?.length ?? 0) + url.length + 12;
  for (let i = 0; i < raw.length; i += 2) bytes += raw[i]!.length + raw[i + 1]!.length + 4;
  if (bytes + 2 > MAX_HEADER_BYTES) throw new DomainError('headers_too_large', HEADERS_TOO_LARGE);
}
