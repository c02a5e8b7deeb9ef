import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import type { Config } from '../../services/platform/config.js';
import { MAX_BODY_BYTES, MAX_HEADER_BYTES } from '../../services/contract/index.js';
import { clientErrorHandler, frameworkErrors } from './transport-errors.js';

// How long the gateway waits for its clients, and how its server refuses what it will not take.
// A client can hold a connection only while it is sending something useful: slow headers, a
// half-sent body or a silent socket are cut off, so neither an attacker nor a stuck client can
// keep the process alive on shutdown or tie up its sockets.

/** Longest path parameter: the contract's ids are at most 255 characters (idParams). */
const MAX_PARAM_LENGTH = 255;

/**
 * Socket inactivity limit while a request is open. It must outlast the longest response the
 * gateway computes (a payment with failover waits on several providers), so it is generous; the
 * request timeout below is what bounds a client that is slow to send.
 */
const CONNECTION_TIMEOUT_MS = 120_000;

/**
 * An idle keep-alive connection is kept longer than common load balancers keep theirs (60 s on
 * AWS and GCP), so the balancer always closes first and never sends on a socket being closed.
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export function serverOptions(config: Config): FastifyHttpOptions<Server> {
  const requestTimeout = config.httpRequestTimeoutMs;
  return {
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    requestTimeout,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: {
      // Node's own default, stated: its overflow is answered by clientErrorHandler.
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout,
      // Headers must arrive within a third of the request's time (at most 10 s): slow-loris.
      headersTimeout: Math.min(10_000, Math.ceil(requestTimeout / 3)),
      // Node enforces both timeouts only when it checks connections (every 30 s by default).
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(requestTimeout / 4)),
    },
    // On close, idle keep-alive sockets are closed at once; busy ones finish their request.
    forceCloseConnections: 'idle',
    // Fastify's own 503 while closing is outside the envelope; shutdown.ts answers it instead.
    return503OnClosing: false,
    clientErrorHandler,
    frameworkErrors,
  };
}
