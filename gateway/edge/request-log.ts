import type { FastifyInstance, FastifyReply } from 'fastify';
import { DEFAULT_MAX_BATCH, createBatcher } from '../../services/platform/batcher.js';
import type { Clock } from '../../services/platform/clock.js';
import { admittedIdentity } from '../auth/identity.js';
import type { GatewayStore, RequestLogEntry } from '../store/index.js';
import { loggedError, loggedPath } from './request-log-redaction.js';

/**
 * How long a lone entry waits for company: nobody waits for the log, and a batch is one commit, so
 * one client's steady calls share statements; the dashboard shows a call at most this much later.
 */
const LOG_WAIT_MS = 50;

/** Reads the error a failed call answered (the HTTP layer's, above this floor, passes it in). */
export type SentErrorReader = (reply: FastifyReply) => Parameters<typeof loggedError>[0] | undefined;

/**
 * Writes each /v1 call with a known key (method, path without its query, status, request id, key
 * prefix, and for a failed call the error it answered: code, message, param, redacted as
 * edge/request-log-redaction.ts says) to the dashboard's request log after the response has gone:
 * onResponse never waits for the write, and calls arriving while a batch is written, or within
 * LOG_WAIT_MS of a lone one, go together in the next one statement (asynchronously committed:
 * gateway/store/request-log.ts).
 * A failed write is logged and dropped: the log is for people looking, not for accounting.
 * Requests refused before a key was known (no or a bad key) belong to no project and are not kept.
 */
export function installRequestLog(
  api: FastifyInstance, deps: { store: GatewayStore; clock: Clock; errorSentBy: SentErrorReader },
): void {
  // A replayed answer (Idempotency-Key) repeats the error logged with the first.
  const errorOf = (reply: FastifyReply) => {
    const sent = deps.errorSentBy(reply);
    return sent ? loggedError(sent) : null;
  };
  const record = createBatcher(async (entries: RequestLogEntry[]) => {
    await deps.store.recordRequests(entries);
    return entries.map(() => undefined);
  }, DEFAULT_MAX_BATCH, LOG_WAIT_MS);
  const pending = new Set<Promise<void>>();

  api.addHook('onResponse', async (request, reply) => {
    const identity = admittedIdentity(request);
    if (!identity) return;
    const written = record({
      requestId: request.id,
      projectId: identity.project.id,
      mode: identity.mode,
      apiKeyPrefix: identity.apiKey.prefix,
      method: request.method,
      path: loggedPath(request.url),
      status: reply.statusCode,
      error: reply.statusCode >= 400 ? errorOf(reply) : null,
      durationMs: Math.round(reply.elapsedTime),
      at: deps.clock.now(),
    }).catch((err) => request.log.warn({ err }, 'request log write failed'));
    pending.add(written);
    void written.finally(() => pending.delete(written));
  });
  // Closing waits for the writes under way, so none is cut off by the pool ending after the server.
  api.addHook('onClose', async () => {
    await Promise.all(pending);
  });
}
