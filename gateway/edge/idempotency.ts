import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../services/platform/clock.js';
import type { Config } from '../../services/platform/config.js';
import { canonicalJson } from '../../services/platform/idempotency-bindings.js';
import { DomainError } from '../../services/contract/index.js';
import { identityOf } from '../auth/identity.js';
import type { GatewayStore, IdempotencyScope } from '../store/index.js';

// Idempotency-Key on the operations the contract marks (idem). A key belongs to the API key that
// sent it. The first request claims the key in Postgres (so every gateway replica agrees), runs,
// and its response is stored; a repeat gets that response back byte for byte, a repeat with another
// body 422 idempotency_key_reused, and a repeat while the first still runs 429
// idempotency_in_progress. Responses of 5xx are not stored: they mean "retry safely", so the key
// is freed and the retry runs again. A runner that dies leaves its claim until the lock expires.
//
// This record is a cache of responses, not what keeps money from moving twice: the key also travels
// to the part that moves the money, which binds it to the resource before any provider is called
// (services/platform/idempotency-bindings.ts). A retry that runs again here (lock expired, 5xx, a
// gateway died) gets that resource back from the part, or 503 idempotency_in_progress.

// Routes are marked `config.idempotent` by api/register.ts, which declares the field.

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** Expired records are swept at most this often per gateway process, off the request path. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * What makes two requests "the same" for a key: method, path and the parsed body, so whitespace
 * and key order do not matter. The body is the validated one, schema defaults filled in, so
 * leaving out a defaulted field and sending its default are the same request too.
 */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(canonicalJson({ method: method.toUpperCase(), path, body })).digest('hex');
}

/** The key a request carries, undefined without one; 422 on the header when it breaks the contract's length. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(', ') : header;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new DomainError(
      'validation_error',
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
      { param: 'Idempotency-Key' },
    );
  }
  return key;
}

/** The key of a request to an (idem) operation, for the part that binds it; undefined without one. */
export function idempotencyKeyFor(request: FastifyRequest): string | undefined {
  if (request.routeOptions.config.idempotent !== true) return undefined;
  return idempotencyKeyOf(request.headers[IDEMPOTENCY_HEADER]);
}

/**
 * What a keyed request answers when its call to a part failed without a contract answer (the part
 * died, shut down or could not be reached mid-call): the part may already have bound the key and
 * moved money, so never a 500 that reads "failed": the retry with the same key is safe and gets
 * the resource, or this again while its outcome is decided.
 */
export function keyedFailure(request: FastifyRequest, err: DomainError): DomainError {
  const lost = err.code === 'internal_error' || err.code === 'service_unavailable';
  if (!lost || request.routeOptions.config?.idempotent !== true || request.headers[IDEMPOTENCY_HEADER] === undefined) {
    return err;
  }
  return new DomainError(
    'idempotency_in_progress',
    'The outcome of this request is not known yet; retry with the same Idempotency-Key after Retry-After seconds.',
    { status: 503 },
  );
}

interface Claim {
  scope: IdempotencyScope;
  token: string;
}

/** Installed in the /v1 scope: every request there is authenticated, and its API key holds the keys. */
export function installIdempotency(
  app: FastifyInstance, deps: { store: GatewayStore; clock: Clock; config: Config },
): void {
  // Claims of requests in flight; a WeakMap keeps the request type free of idempotency fields.
  const claims = new WeakMap<FastifyRequest, Claim>();
  let nextSweepAt = 0;
  let sweeping: Promise<unknown> = Promise.resolve();

  function sweepExpired(now: Date): void {
    if (now.getTime() < nextSweepAt) return;
    nextSweepAt = now.getTime() + SWEEP_INTERVAL_MS;
    sweeping = deps.store.deleteExpiredIdempotencyKeys(now).catch((err) => {
      app.log.warn({ err }, 'idempotency: sweeping expired records failed');
    });
  }

  /** Stores the response of a claimed request, or frees the key when it must run again. */
  async function settle(request: FastifyRequest, claim: Claim, status: number, payload: unknown): Promise<void> {
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8')
      : payload == null ? '' : undefined;
    try {
      if (status < 500 && body !== undefined) {
        const stored = await deps.store.completeIdempotencyKey(claim.scope, claim.token, status, body);
        // The lock lapsed and a retry took the key over while this request still ran: the lock
        // is shorter than this request took, so the deployment's IDEMPOTENCY_LOCK_SECONDS is too low.
        if (!stored) request.log.warn('idempotency: claim lost before the response was stored');
      } else {
        await deps.store.releaseIdempotencyKey(claim.scope, claim.token);
      }
    } catch (err) {
      // The client still gets its response. The claim stays until the lock expires, and a retry
      // after that runs again: the one case a key does not protect against.
      request.log.error({ err }, 'idempotency: recording the outcome failed');
    }
  }

  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.idempotent !== true) return;
    const key = idempotencyKeyOf(request.headers[IDEMPOTENCY_HEADER]);
    if (key === undefined) return;

    const now = deps.clock.now();
    sweepExpired(now);
    const scope = { apiKeyId: identityOf(request).apiKey.id, key };
    const result = await deps.store.claimIdempotencyKey({
      ...scope,
      requestHash: requestHash(request.method, request.url.split('?')[0], request.body),
      now,
      lockedUntil: new Date(now.getTime() + deps.config.idempotencyLockSeconds * 1000),
      expiresAt: new Date(now.getTime() + deps.config.idempotencyTtlHours * 3_600_000),
    });
    switch (result.outcome) {
      case 'claimed':
        claims.set(request, { scope, token: result.token });
        return;
      case 'mismatch':
        throw new DomainError(
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request; use a new key for a new request.',
        );
      case 'in_progress':
        // The error handler adds Retry-After to every idempotency_in_progress.
        throw new DomainError(
          'idempotency_in_progress',
          'A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.',
        );
      case 'completed':
        // The stored text is sent as is (a string payload is not serialised again): byte-identical.
        return reply
          .code(result.status)
          .header('idempotent-replayed', 'true')
          .type('application/json; charset=utf-8')
          .send(result.body);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = claims.get(request);
    if (claim) {
      claims.delete(request);
      await settle(request, claim, reply.statusCode, payload);
    }
    return payload;
  });

  // Safety net: a response that finished without passing onSend (a hijacked or torn-down reply)
  // must not hold its key until the lock expires. Thrown errors need nothing here: the error
  // handler sends the envelope, and onSend sees its status.
  app.addHook('onResponse', async (request) => {
    const claim = claims.get(request);
    if (!claim) return;
    claims.delete(request);
    await deps.store.releaseIdempotencyKey(claim.scope, claim.token).catch((err) => {
      request.log.error({ err }, 'idempotency: releasing the claim failed');
    });
  });

  app.addHook('onClose', async () => {
    await sweeping;
  });
}
