import { isIP } from 'node:net';
import { DEFAULT_DATABASE_TIMEOUTS as DB_DEFAULTS } from './db.js';
import { MIN_INTERNAL_TOKEN_LENGTH, type InternalCaller } from './internal-callers.js';
import { parseOriginEntry } from './net/origin-allowlist.js';

// Every environment variable the service reads is parsed here, once, at start-up.
// A bad or missing value stops start-up with a message that names the variable.

export type ServiceName = 'payments' | 'routing-risk' | 'ledger' | 'payouts' | 'webhooks';
export type PartName = ServiceName | 'gateway';
export const SERVICE_NAMES: readonly ServiceName[] = ['payments', 'routing-risk', 'ledger', 'payouts', 'webhooks'];

/** Bounds on waiting for Postgres, so a partition answers 503 instead of hanging (docs/operations.md). */
export interface DatabaseTimeouts {
  /** A connection opened, or a pooled client handed out (DATABASE_CONNECT_TIMEOUT_MS). */
  connectMs: number;
  /** Postgres cancels a statement running longer (DATABASE_STATEMENT_TIMEOUT_MS). */
  statementMs: number;
  /** The part stops waiting for a statement's answer (DATABASE_QUERY_TIMEOUT_MS): a dead socket. */
  queryMs: number;
  /** Postgres ends a session idle inside a transaction this long (DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS). */
  idleInTransactionMs: number;
  /** TCP keepalive probes start after the connection is idle this long (DATABASE_KEEPALIVE_DELAY_MS). */
  keepAliveDelayMs: number;
}

export interface Config {
  databaseUrl?: string;
  /** Postgres connections each part's pool may open (replicas × parts × this must fit the server). */
  databasePoolSize: number;
  /** How long a part waits for Postgres: a connection, a statement, a transaction left idle (db.ts). */
  database: DatabaseTimeouts;
  /** Process clock minus the database's beyond which a part is not ready and claims no work (database-clock.ts). */
  clockSkewMaxMs: number;
  /** How often a part measures its clock against the database's. */
  clockSkewCheckMs: number;
  /** Deadline of one call from the gateway (or a part) to another part: a request's whole budget. */
  requestBudgetMs: number;
  /** One NATS server's URL or a comma-separated list of seeds of a cluster (bus/nats-url.ts). */
  natsUrl?: string;
  natsStream: string;
  natsSubjectPrefix: string;
  /** The stream's replicas (NATS_STREAM_REPLICAS, 1-5): 3 on a cluster, so a quorum outlives a dead server. */
  natsStreamReplicas: number;
  /** Where the stream's replicas go: a cluster by name and/or server tags (NATS_STREAM_CLUSTER, NATS_STREAM_TAGS). */
  natsStreamPlacement?: { cluster?: string; tags?: string[] };
  /** Address the part binds to. */
  host: string;
  /** HTTP port of the gateway. */
  port: number;
  /** gRPC port of a service part. */
  grpcPort: number;
  /** Port of `GET /metrics` (Prometheus); unset: no metrics endpoint. */
  metricsPort?: number;
  /** OTLP collector traces are exported to (OTEL_EXPORTER_OTLP_ENDPOINT); unset: no tracing at all. */
  otlpEndpoint?: string;
  /** How traces travel to it (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL). */
  otlpProtocol: OtlpProtocol;
  /** Base URLs of the service parts, as the gateway and peers call them. */
  peers: Partial<Record<ServiceName, string>>;
  operatorToken?: string;
  /** The token the gateway and the parts present to each other (INTERNAL_TOKEN); `npm start` makes one. */
  internalToken?: string;
  /** Other internal services a part admits, by their token's hash and projects (INTERNAL_CALLERS). */
  internalCallers: InternalCaller[];
  /** How often a part checks that its Postgres answers, for its grpc.health.v1 status. */
  healthCheckIntervalMs: number;
  logLevel: string;
  dataDir: string;
  /** Port of the embedded Postgres that `npm start` runs when DATABASE_URL is not set. */
  embeddedPostgresPort: number;
  outboxPollMs: number;
  /** How long routing-risk's outcome writer waits for more attempt outcomes before writing a lone one. */
  routingOutcomeWaitMs: number;
  /**
   * For tests only (ROUTING_DECISION_WRITE_TEST_DELAY_MS, 0 by default): how long routing-risk holds
   * each batch of decisions before writing it, so a test can kill the part between answer and write.
   */
  routingDecisionWriteTestDelayMs: number;
  /** Hours a published outbox row is kept for `svc outbox republish`; 0 keeps them all. */
  outboxRetentionHours: number;
  shutdownTimeoutMs: number;
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
  /** Deadline of one call to a payment provider; past it the provider is asked for the outcome. */
  providerTimeoutMs: number;
  /** A manual-capture authorization not captured within this long is cancelled. */
  authorizationTtlHours: number;
  /** How often the payments part looks for expired authorizations. */
  expirySweepMs: number;
  /** How long a customer action (redirect, QR, bank transfer page) waits before the payment fails. */
  customerActionTtlMinutes: number;
  /** How often payments asks providers about attempts whose outcome is still open. */
  reconciliationSweepMs: number;
  /** How often payments syncs each connected, active Stripe account's settlements into the ledger; 0 = never. */
  stripeSettlementSyncIntervalMs: number;
  /** How often each connected account's disputes are asked for (jobs/dispute-sync.ts); 0 off. */
  disputeSyncIntervalMs: number;
  /** Where merchants' customers reach the gateway, for hosted-page links (no trailing slash). */
  publicBaseUrl?: string;
  /** Deadline of one webhook delivery attempt: connect, request and response together. */
  webhookTimeoutMs: number;
  /** Attempts per delivery before it is exhausted (the contract's default is 6). */
  webhookMaxAttempts: number;
  /** Webhook attempts in flight at once per webhooks replica. */
  webhookConcurrency: number;
  /** Of those, at most this many to one endpoint, so a slow endpoint cannot take every slot. */
  webhookEndpointConcurrency: number;
  /** How often each webhooks replica looks for due retries (it is also woken by new events). */
  webhookPollMs: number;
  /** Whether test-mode endpoints may point at loopback addresses (local development). */
  webhooksAllowLoopbackInTest: boolean;
  /** 32-byte key that encrypts endpoint signing secrets at rest; unset: stored as they are. */
  webhookSecretKey?: Buffer;
  /**
   * 32-byte key that encrypts provider accounts' credentials and stored methods' tokens; unset:
   * connecting a provider is refused and tokens are kept unencrypted.
   */
  providerSecretKey?: Buffer;
  /** PROVIDER_SECRET_KEY_OTHER: a second key opened with, never sealed with, during a rotation (docs/operations.md). */
  providerSecretKeyOther?: Buffer;
  /**
   * Origins of provider base URLs the operator vouches for (PROVIDER_BASE_URL_ALLOWLIST): accepted as
   * written in any mode. Any other api_base_url must be https on a public host. Empty by default.
   */
  providerBaseUrlAllowlist: string[];
  /** Demo providers settle a movement once it is this old (T+1 by default). */
  settlementCutoffMs: number;
  /** How often the ledger runs a cycle of the demo providers' settlement reports. */
  settlementSweepMs: number;
  /** A payout waits this long in `created` (cancellable) before it is sent to its provider. */
  payoutHoldMs: number;
  /** How often the payouts part sends the payouts whose hold has passed. */
  payoutSweepMs: number;
  /** The hold of a test-mode payout (PAYOUT_TEST_HOLD_MS): seconds, so a first try is not a minute's wait. */
  payoutTestHoldMs: number;
  // The dashboard's per-client-address throttles (gateway/dashboard/address-throttle.ts).
  /** Requests per address per minute to register, password reset and its confirm, invitation accept. */
  authThrottlePerMinute: number;
  /** Requests per address per minute to member sign-in (an office behind one address signs in together). */
  signInThrottlePerMinute: number;

  // Mailed links and team (red team fixes): the dashboard's mail transport and its sweep.
  /** The SMTP server the dashboard mails through (SMTP_HOST …); unset: no mail transport. */
  smtp?: SmtpSettings;
  /** How often the gateway deletes expired mailed links and throttle rows past their window. */
  dashboardSweepMs: number;

  // Red team fixes: event streams, caps and webhook secrets (docs/decisions.md).
  /** An open event stream (svc listen) ends after this long; its client reconnects and resumes. */
  eventStreamMaxLifetimeSeconds: number;
  /** Event streams one gateway replica holds open at once, every project together. */
  eventStreamsPerGateway: number;
  /** How often a gateway re-checks its open streams' keys and allow-lists against Postgres. */
  eventStreamRecheckMs: number;
  /** Webhook attempts one webhooks replica starts per second to one destination host; more wait. */
  webhookHostRatePerSecond: number;
  /** Days events, deliveries and attempts are kept by webhooks (GET /v1/events shows as much). */
  webhookRetentionDays: number;
  /** Hours an endpoint may fail every delivery before it is disabled; 0: never disabled for it. */
  webhookDisableAfterHours: number;
  /** How often each webhooks replica sweeps: disables failing endpoints, deletes what is past retention. */
  webhookSweepMs: number;
  /** Start-up's budget: each step (Postgres, migrations, NATS, JetStream) retries until it is spent. */
  startTimeoutMs: number;
  /** How parts sharing one process (all-in-one) call each other (IN_PROCESS_CALLS, services/platform/rpc.ts). */
  inProcessCalls: InProcessCalls;
}

/** `direct`: the implementation gets the message itself; `router`: Connect's router transport encodes it as over gRPC. */
export const IN_PROCESS_CALLS = ['direct', 'router'] as const;
export type InProcessCalls = (typeof IN_PROCESS_CALLS)[number];

export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (SMTPS, port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user?: string;
  /** A secret: never logged, never echoed in an error. */
  password?: string;
  /** The From of every mail: an address, or `Name <address>`. */
  from: string;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, reason: string) {
    super(`configuration: ${variable} ${reason}`);
  }
}

/** Required variables that are unset, all named at once so one edit of the environment fixes them. */
export class MissingVariablesError extends ConfigError {
  constructor(readonly variables: string[], reason: string) {
    super(variables[0], reason);
    this.message = `configuration: ${variables.join(', ')} ${variables.length === 1 ? 'is' : 'are'} required ${reason}`;
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The OTLP transports of the OpenTelemetry specification's exporter configuration. */
export const OTLP_PROTOCOLS = ['http/json', 'http/protobuf', 'grpc'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

function otlpProtocol(env: Env): OtlpProtocol {
  const name = str(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const raw = str(env, name) ?? 'http/json';
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${OTLP_PROTOCOLS.join(', ')}, got "${raw}"`);
  return raw as OtlpProtocol;
}

function inProcessCalls(env: Env): InProcessCalls {
  const raw = str(env, 'IN_PROCESS_CALLS') ?? 'direct';
  if (!(IN_PROCESS_CALLS as readonly string[]).includes(raw)) {
    throw new ConfigError('IN_PROCESS_CALLS', `must be one of ${IN_PROCESS_CALLS.join(', ')}, got "${raw}"`);
  }
  return raw as InProcessCalls;
}

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** NATS_URL: one URL or a comma-separated seed list, each entry checked as url() checks one. */
function urlList(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  const entries = raw.split(',').map((e) => e.trim());
  if (entries.some((e) => e === '')) throw new ConfigError(name, 'has an empty entry in its comma-separated list');
  entries.forEach((entry, i) => {
    try {
      url({ [name]: entry }, name, protocols);
    } catch (err) {
      if (entries.length === 1 || !(err instanceof ConfigError)) throw err;
      throw new ConfigError(name, `entry ${i + 1} of ${entries.length} ${err.message.slice(`configuration: ${name} `.length)}`);
    }
  });
  return entries.join(',');
}

function streamPlacement(env: Env): Config['natsStreamPlacement'] {
  const cluster = str(env, 'NATS_STREAM_CLUSTER');
  const tags = str(env, 'NATS_STREAM_TAGS')?.split(',').map((t) => t.trim()).filter(Boolean);
  if (cluster !== undefined && !/^[A-Za-z0-9_-]+$/.test(cluster)) {
    throw new ConfigError('NATS_STREAM_CLUSTER', `must be a NATS cluster name, got "${cluster}"`);
  }
  if (cluster === undefined && !tags?.length) return undefined;
  return { ...(cluster === undefined ? {} : { cluster }), ...(tags?.length ? { tags } : {}) };
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
  }
  return raw;
}

/** An exact IPv4/IPv6 address or a CIDR range. */
function isAddressOrRange(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function addressList(env: Env, name: string): string[] {
  const raw = str(env, name);
  if (raw === undefined) return [];
  const entries = raw.split(',').map((e) => e.trim()).filter(Boolean);
  const bad = entries.find((e) => !isAddressOrRange(e));
  if (bad !== undefined) throw new ConfigError(name, `has "${bad}", which is not an IP address or CIDR range`);
  return entries;
}

/** Comma-separated origins (shared/net/origin-allowlist.ts), normalised; empty when unset. */
function originList(env: Env, name: string): string[] {
  const entries = (str(env, name) ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  return entries.map((entry) => {
    const parsed = parseOriginEntry(entry);
    if ('problem' in parsed) throw new ConfigError(name, `has "${entry}", which ${parsed.problem}`);
    return parsed.origin;
  });
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

/** 32 bytes, as 64 hex characters or base64. */
function key32(env: Env, name: string): Buffer | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (bytes.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(raw) && bytes.toString('base64') !== raw)) {
    throw new ConfigError(name, 'must be 32 bytes written as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)');
  }
  return bytes;
}

function subjectToken(env: Env, name: string, fallback: string, pattern: RegExp): string {
  const raw = str(env, name) ?? fallback;
  if (!pattern.test(raw)) throw new ConfigError(name, `has characters NATS does not allow here: "${raw}"`);
  return raw;
}

function projectList(name: string, caller: string, projects: unknown): '*' | string[] {
  if (projects === '*') return '*';
  if (Array.isArray(projects) && projects.length > 0 && projects.every((p) => typeof p === 'string' && /^prj_\w+$/.test(p))) {
    return projects as string[];
  }
  throw new ConfigError(name, `needs ${caller}.projects to be "*" or a non-empty list of project ids (prj_...)`);
}

/**
 * INTERNAL_CALLERS: {"<name>": {"token_sha256": "<64 hex>", "projects": ["prj_..."] or "*"}, ...},
 * one JSON value, as a Kubernetes Secret key holds it. Hashes only: the list admits, never calls.
 */
function internalCallers(env: Env, name: string): InternalCaller[] {
  const raw = str(env, name);
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(name, 'must be a JSON object of callers (README "Operate it")');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(name, 'must be a JSON object of callers (README "Operate it")');
  }
  return Object.entries(parsed).map(([caller, entry]) => {
    const { token_sha256: hash, projects } = (entry ?? {}) as { token_sha256?: unknown; projects?: unknown };
    if (!/^[\w.-]{1,64}$/.test(caller)) throw new ConfigError(name, `has a caller name "${caller}" that is not a plain word`);
    if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/i.test(hash)) {
      throw new ConfigError(name, `needs ${caller}.token_sha256 to be 64 hex characters (the sha256 of its token)`);
    }
    return { name: caller, tokenSha256: Buffer.from(hash, 'hex'), projects: projectList(name, caller, projects) };
  });
}

export function peerVariable(service: ServiceName): string {
  return `${service.toUpperCase().replace('-', '_')}_URL`;
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = str(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const peers: Partial<Record<ServiceName, string>> = {};
  for (const service of SERVICE_NAMES) {
    const value = url(env, peerVariable(service), ['http:', 'https:']);
    if (value) peers[service] = value;
  }
  const operatorToken = str(env, 'OPERATOR_TOKEN');
  if (operatorToken !== undefined && operatorToken.length < 24) {
    throw new ConfigError('OPERATOR_TOKEN', 'must be at least 24 characters');
  }
  const internalToken = str(env, 'INTERNAL_TOKEN');
  if (internalToken !== undefined && internalToken.length < MIN_INTERNAL_TOKEN_LENGTH) {
    throw new ConfigError('INTERNAL_TOKEN', `must be at least ${MIN_INTERNAL_TOKEN_LENGTH} characters`);
  }
  if (str(env, 'PROVIDER_SECRET_KEY_OTHER') !== undefined && str(env, 'PROVIDER_SECRET_KEY') === undefined) {
    throw new ConfigError('PROVIDER_SECRET_KEY_OTHER', 'is the second key of a rotation: set PROVIDER_SECRET_KEY too');
  }
  return {
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    natsUrl: urlList(env, 'NATS_URL', ['nats:', 'tls:']),
    natsStream: subjectToken(env, 'NATS_STREAM', 'SVC_EVENTS', /^[A-Za-z0-9_-]+$/),
    natsSubjectPrefix: subjectToken(env, 'NATS_SUBJECT_PREFIX', 'svc.events', /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/),
    natsStreamReplicas: int(env, 'NATS_STREAM_REPLICAS', 1, 1, 5),
    natsStreamPlacement: streamPlacement(env),
    host: str(env, 'HOST') ?? '0.0.0.0',
    port: int(env, 'PORT', 8080, 0, 65535),
    grpcPort: int(env, 'GRPC_PORT', 50051, 0, 65535),
    metricsPort: str(env, 'METRICS_PORT') === undefined ? undefined : int(env, 'METRICS_PORT', 0, 0, 65535),
    otlpEndpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
    otlpProtocol: otlpProtocol(env),
    peers,
    operatorToken,
    internalToken,
    internalCallers: internalCallers(env, 'INTERNAL_CALLERS'),
    healthCheckIntervalMs: int(env, 'HEALTH_CHECK_INTERVAL_MS', 5_000, 100, 60_000),
    logLevel,
    dataDir: str(env, 'DATA_DIR') ?? '.data',
    embeddedPostgresPort: int(env, 'EMBEDDED_POSTGRES_PORT', 54329, 1, 65535),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
    database: {
      connectMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', DB_DEFAULTS.connectMs, 100, 60_000),
      statementMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', DB_DEFAULTS.statementMs, 100, 600_000),
      queryMs: int(env, 'DATABASE_QUERY_TIMEOUT_MS', DB_DEFAULTS.queryMs, 100, 600_000),
      idleInTransactionMs: int(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', DB_DEFAULTS.idleInTransactionMs, 1_000, 3_600_000),
      keepAliveDelayMs: int(env, 'DATABASE_KEEPALIVE_DELAY_MS', DB_DEFAULTS.keepAliveDelayMs, 1_000, 600_000),
    },
    clockSkewMaxMs: int(env, 'CLOCK_SKEW_MAX_MS', 2_000, 10, 3_600_000),
    clockSkewCheckMs: int(env, 'CLOCK_SKEW_CHECK_MS', 30_000, 100, 3_600_000),
    requestBudgetMs: int(env, 'REQUEST_BUDGET_MS', 60_000, 1_000, 600_000),
    outboxPollMs: int(env, 'OUTBOX_POLL_MS', 250, 10, 60_000),
    routingOutcomeWaitMs: int(env, 'ROUTING_OUTCOME_WAIT_MS', 200, 0, 5_000),
    routingDecisionWriteTestDelayMs: int(env, 'ROUTING_DECISION_WRITE_TEST_DELAY_MS', 0, 0, 60_000),
    outboxRetentionHours: int(env, 'OUTBOX_RETENTION_HOURS', 168, 0, 24 * 366),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 300_000),
    httpRequestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    trustedProxies: addressList(env, 'TRUSTED_PROXIES'),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 1000, 1, 10_000_000),
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 30),
    idempotencyLockSeconds: int(env, 'IDEMPOTENCY_LOCK_SECONDS', 120, 1, 3600),
    providerTimeoutMs: int(env, 'PROVIDER_TIMEOUT_MS', 10_000, 100, 120_000),
    // Card schemes hold funds for at most about 30 days; a longer hold is never honoured upstream.
    authorizationTtlHours: int(env, 'AUTHORIZATION_TTL_HOURS', 168, 1, 24 * 31),
    expirySweepMs: int(env, 'EXPIRY_SWEEP_MS', 60_000, 10, 3_600_000),
    reconciliationSweepMs: int(env, 'RECONCILIATION_SWEEP_MS', 60_000, 10, 3_600_000),
    stripeSettlementSyncIntervalMs: int(env, 'STRIPE_SETTLEMENT_SYNC_INTERVAL_MS', 86_400_000, 0, 30 * 86_400_000),
    disputeSyncIntervalMs: int(env, 'DISPUTE_SYNC_INTERVAL_MS', 3_600_000, 0, 3_600_000),
    customerActionTtlMinutes: int(env, 'CUSTOMER_ACTION_TTL_MINUTES', 15, 1, 7 * 24 * 60),
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookMaxAttempts: int(env, 'WEBHOOK_MAX_ATTEMPTS', 6, 1, 50),
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 200, 1, 10_000),
    webhookEndpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 16, 1, 1000),
    webhookPollMs: int(env, 'WEBHOOK_POLL_MS', 500, 10, 60_000),
    webhooksAllowLoopbackInTest: bool(env, 'WEBHOOKS_ALLOW_LOOPBACK_IN_TEST', true),
    webhookSecretKey: key32(env, 'WEBHOOK_SECRET_KEY'),
    providerSecretKey: key32(env, 'PROVIDER_SECRET_KEY'),
    providerSecretKeyOther: key32(env, 'PROVIDER_SECRET_KEY_OTHER'),
    providerBaseUrlAllowlist: originList(env, 'PROVIDER_BASE_URL_ALLOWLIST'),
    settlementCutoffMs: int(env, 'SETTLEMENT_CUTOFF_MS', 86_400_000, 0, 30 * 86_400_000),
    settlementSweepMs: int(env, 'SETTLEMENT_SWEEP_MS', 60_000, 10, 86_400_000),
    payoutHoldMs: int(env, 'PAYOUT_HOLD_MS', 60_000, 0, 7 * 86_400_000),
    payoutSweepMs: int(env, 'PAYOUT_SWEEP_MS', 1_000, 10, 3_600_000),
    // The dashboard's per-client-address throttles: what a person never reaches and a script does.
    authThrottlePerMinute: int(env, 'AUTH_THROTTLE_PER_MINUTE', 10, 1, 100_000),
    signInThrottlePerMinute: int(env, 'SIGN_IN_THROTTLE_PER_MINUTE', 30, 1, 100_000),

    smtp: smtpSettings(env),
    dashboardSweepMs: int(env, 'DASHBOARD_SWEEP_MS', 600_000, 10, 86_400_000),

    // Red team fixes: event streams, caps and webhook secrets (docs/decisions.md).
    eventStreamMaxLifetimeSeconds: int(env, 'EVENT_STREAM_MAX_LIFETIME_SECONDS', 1800, 1, 86_400),
    eventStreamsPerGateway: int(env, 'EVENT_STREAMS_PER_GATEWAY', 1000, 1, 100_000),
    eventStreamRecheckMs: int(env, 'EVENT_STREAM_RECHECK_MS', 2_000, 100, 5_000),
    webhookHostRatePerSecond: int(env, 'WEBHOOK_HOST_RATE_PER_SECOND', 200, 1, 10_000),
    // Issue 29: events API retention, endpoint health.
    webhookRetentionDays: int(env, 'WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
    webhookDisableAfterHours: int(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 120, 0, 24 * 366),
    webhookSweepMs: int(env, 'WEBHOOK_SWEEP_MS', 60_000, 50, 86_400_000),
    // The chart's startup probe budget (2 s x 60); the chart sets it from the probe.
    startTimeoutMs: int(env, 'START_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
    inProcessCalls: inProcessCalls(env),

    // A first hour without stumbles (issue 29, docs/decisions.md): a test payout waits seconds, not
    // a minute; an explicit PAYOUT_HOLD_MS still applies to both modes unless this one is set.
    payoutTestHoldMs: int(env, 'PAYOUT_TEST_HOLD_MS', str(env, 'PAYOUT_HOLD_MS') === undefined ? 5_000 : int(env, 'PAYOUT_HOLD_MS', 0, 0, 7 * 86_400_000), 0, 7 * 86_400_000),
  };
}

// Mailed links and team (red team fixes): SMTP_HOST turns the mail transport on; the rest needs it.
function smtpSettings(env: Env): SmtpSettings | undefined {
  const host = str(env, 'SMTP_HOST');
  const others = ['SMTP_PORT', 'SMTP_SECURE', 'SMTP_USER', 'SMTP_PASSWORD', 'MAIL_FROM'].filter((n) => str(env, n) !== undefined);
  if (host === undefined) {
    if (others.length > 0) throw new ConfigError(others[0]!, 'needs SMTP_HOST (the mail server) to be set too');
    return undefined;
  }
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) throw new ConfigError('SMTP_HOST', `must be a host name or address, got "${host}"`);
  const from = str(env, 'MAIL_FROM');
  if (from === undefined) throw new ConfigError('MAIL_FROM', 'is required with SMTP_HOST (the From address of dashboard mail)');
  if (!/^[^\s@<>]+@[^\s@<>]+$|^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(from)) {
    throw new ConfigError('MAIL_FROM', 'must be an address (no-reply@example.com) or "Name <no-reply@example.com>"');
  }
  const port = int(env, 'SMTP_PORT', 587, 1, 65535);
  const user = str(env, 'SMTP_USER');
  const password = env.SMTP_PASSWORD === undefined || env.SMTP_PASSWORD === '' ? undefined : env.SMTP_PASSWORD;
  if ((user === undefined) !== (password === undefined)) {
    // Names the one missing; SMTP_USER and SMTP_PASSWORD are set together or not at all.
    throw new ConfigError(user === undefined ? 'SMTP_USER' : 'SMTP_PASSWORD', `is required with ${user === undefined ? 'SMTP_PASSWORD' : 'SMTP_USER'}`);
  }
  return { host, port, secure: bool(env, 'SMTP_SECURE', port === 465), user, password, from };
}

/** What a part started on its own needs besides Postgres and the peers it calls. */
export interface PartNeeds {
  /** Parts that publish or consume events need NATS; the gateway does not (false). */
  nats: boolean;
  /**
   * The webhooks part on its own needs WEBHOOK_SECRET_KEY: without it every endpoint's signing
   * secret would be stored readable by anyone with a database dump (in one process it only warns).
   */
  webhookSecretKey?: boolean;
}

/**
 * A part started on its own needs Postgres, NATS (unless `needs` says not) and the gRPC addresses of
 * the peers it calls. Every missing one is reported in one error, not the first alone.
 */
export function requireForPart(
  config: Config, part: PartName, peers: readonly ServiceName[], needs: PartNeeds = { nats: true },
): void {
  const missing = [
    ...(config.databaseUrl ? [] : ['DATABASE_URL']),
    ...(config.natsUrl || !needs.nats ? [] : ['NATS_URL']),
    ...peers.filter((peer) => !config.peers[peer]).map(peerVariable),
    // Parts refuse callers without a credential, so a lone part must have one to call or be called.
    ...(config.internalToken ? [] : ['INTERNAL_TOKEN']),
    ...(config.webhookSecretKey || !needs.webhookSecretKey ? [] : ['WEBHOOK_SECRET_KEY']),
  ];
  if (missing.length === 0) return;
  const calls = peers.length > 0 ? `; <PART>_URL is the gRPC address of a part it calls (${peers.join(', ')})` : '';
  const key = missing.includes('WEBHOOK_SECRET_KEY')
    ? '; WEBHOOK_SECRET_KEY encrypts endpoint signing secrets at rest (32 bytes, e.g. `openssl rand -hex 32`; never change it once set)'
    : '';
  throw new MissingVariablesError(missing, `to run ${part} on its own${calls}${key}`);
}
