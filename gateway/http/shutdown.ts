import type { FastifyInstance, FastifyReply } from 'fastify';
import { drainTimeMs } from '../../services/platform/drain.js';
import type { Logger } from '../../services/platform/logger.js';
import { DomainError } from '../../services/contract/index.js';

// Shutdown of the gateway. On SIGTERM the server stops accepting connections and closes idle
// keep-alive ones (forceCloseConnections: 'idle'); a request still arriving on a busy connection is
// answered 503 in the envelope, with `connection: close`, so the client retries elsewhere. Busy
// connections get until shortly before SHUTDOWN_TIMEOUT_MS to finish; then whatever is left (a
// client holding a half-sent body, a stuck download) is cut, and the process exits in time.

/** Tracks whether the app has begun closing; Fastify's own flag is private. */
export function trackClosing(app: FastifyInstance): () => boolean {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  return () => closing;
}

/** An onRequest check: no new work once closing has begun. */
export function refuseWhileClosing(isClosing: () => boolean, reply: FastifyReply): void {
  if (!isClosing()) return;
  reply.header('connection', 'close');
  reply.header('retry-after', '1');
  throw new DomainError('service_unavailable', 'This gateway is shutting down; retry the request.');
}

/** Closes the app; connections still open after the drain time are destroyed. */
export async function closeGateway(app: FastifyInstance, shutdownTimeoutMs: number, logger: Logger): Promise<void> {
  const cut = setTimeout(() => {
    logger.warn({ drainMs: drainTimeMs(shutdownTimeoutMs) }, 'closing the connections still open after the drain time');
    app.server.closeAllConnections();
  }, drainTimeMs(shutdownTimeoutMs));
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
