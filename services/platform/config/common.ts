import { WHOLE_NUMBERS } from '../config-variables.js';
import { MIN_INTERNAL_TOKEN_LENGTH, type InternalCaller } from '../internal-callers.js';
import { ConfigError, bool, int, RENAMED, str, subjectToken, url, urlList, type Env } from './parse.js';

// The settings every part reads: Postgres and its time limits, NATS, addresses and ports,
// tracing, the parts' addresses and tokens, logging, start and shutdown.

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

/** The documented defaults of DatabaseTimeouts (config-variables.ts). */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectMs: WHOLE_NUMBERS.DATABASE_CONNECT_TIMEOUT_MS.default,
  statementMs: WHOLE_NUMBERS.DATABASE_STATEMENT_TIMEOUT_MS.default,
  queryMs: WHOLE_NUMBERS.DATABASE_QUERY_TIMEOUT_MS.default,
  idleInTransactionMs: WHOLE_NUMBERS.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS.default,
  keepAliveDelayMs: WHOLE_NUMBERS.DATABASE_KEEPALIVE_DELAY_MS.default,
};

export interface CommonSettings {
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
  /** Processes `npm start` serves from (WORKERS); 0 picks one per core (all-in-one/workers.ts). */
  workers: number;
  outboxPollMs: number;
  /** How long the relay, woken by a commit, waits for more before its round (OUTBOX_WAIT_MS). */
  outboxWaitMs: number;
  /** Consecutive events of one aggregate claimed together go as one bus message (OUTBOX_PACK). */
  outboxPack: boolean;
  /** Hours a published outbox row is kept for `svc outbox republish`; 0 keeps them all. */
  outboxRetentionHours: number;
  shutdownTimeoutMs: number;
  /** Old names of variables this configuration read in place of their new ones (warnRenamedVariables). */
  renamedVariables?: string[];
  /** Where merchants' customers reach the gateway, for hosted-page links (no trailing slash). */
  publicBaseUrl?: string;
  /** Start-up's budget: each step (Postgres, migrations, NATS, JetStream) retries until it is spent. */
  startTimeoutMs: number;
  /** How parts sharing one process (all-in-one) call each other (IN_PROCESS_CALLS, services/platform/rpc.ts). */
  inProcessCalls: InProcessCalls;
}

/** `direct`: the implementation gets the message itself; `router`: Connect's router transport encodes it as over gRPC. */
export const IN_PROCESS_CALLS = ['direct', 'router'] as const;
export type InProcessCalls = (typeof IN_PROCESS_CALLS)[number];

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

function streamPlacement(env: Env): CommonSettings['natsStreamPlacement'] {
  const cluster = str(env, 'NATS_STREAM_CLUSTER');
  const tags = str(env, 'NATS_STREAM_TAGS')?.split(',').map((t) => t.trim()).filter(Boolean);
  if (cluster !== undefined && !/^[A-Za-z0-9_-]+$/.test(cluster)) {
    throw new ConfigError('NATS_STREAM_CLUSTER', `must be a NATS cluster name, got "${cluster}"`);
  }
  if (cluster === undefined && !tags?.length) return undefined;
  return { ...(cluster === undefined ? {} : { cluster }), ...(tags?.length ? { tags } : {}) };
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
    throw new ConfigError(name, 'must be a JSON object of callers (docs/operations.md, "Internal callers")');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(name, 'must be a JSON object of callers (docs/operations.md, "Internal callers")');
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

export function commonSettings(env: Env): CommonSettings {
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
  return {
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE'),
    database: {
      connectMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS'),
      statementMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS'),
      queryMs: int(env, 'DATABASE_QUERY_TIMEOUT_MS'),
      idleInTransactionMs: int(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS'),
      keepAliveDelayMs: int(env, 'DATABASE_KEEPALIVE_DELAY_MS'),
    },
    clockSkewMaxMs: int(env, 'CLOCK_SKEW_MAX_MS'),
    clockSkewCheckMs: int(env, 'CLOCK_SKEW_CHECK_MS'),
    requestBudgetMs: int(env, 'REQUEST_BUDGET_MS'),
    natsUrl: urlList(env, 'NATS_URL', ['nats:', 'tls:']),
    natsStream: subjectToken(env, 'NATS_STREAM', 'SVC_EVENTS', /^[A-Za-z0-9_-]+$/),
    natsSubjectPrefix: subjectToken(env, 'NATS_SUBJECT_PREFIX', 'svc.events', /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/),
    natsStreamReplicas: int(env, 'NATS_STREAM_REPLICAS'),
    natsStreamPlacement: streamPlacement(env),
    host: str(env, 'HOST') ?? '0.0.0.0',
    port: int(env, 'PORT'),
    grpcPort: int(env, 'GRPC_PORT'),
    metricsPort: str(env, 'METRICS_PORT') === undefined ? undefined : int(env, 'METRICS_PORT'),
    otlpEndpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
    otlpProtocol: otlpProtocol(env),
    peers,
    operatorToken,
    internalToken,
    internalCallers: internalCallers(env, 'INTERNAL_CALLERS'),
    healthCheckIntervalMs: int(env, 'HEALTH_CHECK_INTERVAL_MS'),
    logLevel,
    dataDir: str(env, 'DATA_DIR') ?? '.data',
    embeddedPostgresPort: int(env, 'EMBEDDED_POSTGRES_PORT'),
    workers: int(env, 'WORKERS'),
    outboxPollMs: int(env, 'OUTBOX_POLL_MS'),
    outboxWaitMs: int(env, 'OUTBOX_WAIT_MS'),
    outboxPack: bool(env, 'OUTBOX_PACK', false),
    outboxRetentionHours: int(env, 'OUTBOX_RETENTION_HOURS'),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS'),
    renamedVariables: Object.keys(RENAMED).filter((old) => env[old] !== undefined),
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
    // The chart's startup probe budget (2 s x 60); the chart sets it from the probe.
    startTimeoutMs: int(env, 'START_TIMEOUT_MS'),
    inProcessCalls: inProcessCalls(env),
  };
}
