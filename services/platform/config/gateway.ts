import { addressList, int, type Env } from './parse.js';

// The gateway's settings: its HTTP edge (request time limit, trusted proxies, rate limit,
// idempotency) and the event streams it holds open for `svc listen`.

export interface GatewaySettings {
  /** The gateway's limit for receiving a whole request (headers and body) from a client. */
  httpRequestTimeoutMs: number;
  /** Proxies whose X-Forwarded-For is believed (exact addresses or CIDR ranges); empty: none. */
  trustedProxies: string[];
  /** Requests per API key per rolling minute, unless the key has its own ceiling. */
  rateLimitPerMinute: number;
  /** How long an idempotency record is kept and replayed. */
  idempotencyTtlHours: number;
  /** After this long a request still "in progress" is taken as dead and its key can be retried. */
  idempotencyLockSeconds: number;
  /** An open event stream (svc listen) ends after this long; its client reconnects and resumes. */
  eventStreamMaxLifetimeSeconds: number;
  /** Event streams one gateway replica holds open at once, every project together. */
  eventStreamsPerGateway: number;
  /** How often a gateway re-checks its open streams' keys and allow-lists against Postgres. */
  eventStreamRecheckMs: number;
}

export function gatewaySettings(env: Env): GatewaySettings {
  return {
    httpRequestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS'),
    trustedProxies: addressList(env, 'TRUSTED_PROXIES'),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE'),
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS'),
    idempotencyLockSeconds: int(env, 'IDEMPOTENCY_LOCK_SECONDS'),
    eventStreamMaxLifetimeSeconds: int(env, 'EVENT_STREAM_MAX_LIFETIME_SECONDS'),
    eventStreamsPerGateway: int(env, 'EVENT_STREAMS_PER_GATEWAY'),
    eventStreamRecheckMs: int(env, 'EVENT_STREAM_RECHECK_MS'),
  };
}
