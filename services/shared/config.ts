// Every environment variable the service reads is parsed here, once, at start-up.
// A bad or missing value stops start-up with a message that names the variable.

export type ServiceName = 'payments' | 'routing-risk' | 'ledger' | 'payouts' | 'webhooks';
export type PartName = ServiceName | 'gateway';
export const SERVICE_NAMES: readonly ServiceName[] = ['payments', 'routing-risk', 'ledger', 'payouts', 'webhooks'];

export interface Config {
  databaseUrl?: string;
  natsUrl?: string;
  natsStream: string;
  natsSubjectPrefix: string;
  /** Address the part binds to. */
  host: string;
  /** HTTP port of the gateway. */
  port: number;
  /** gRPC port of a service part. */
  grpcPort: number;
  /** Base URLs of the service parts, as the gateway and peers call them. */
  peers: Partial<Record<ServiceName, string>>;
  operatorToken?: string;
  logLevel: string;
  dataDir: string;
  /** Port of the embedded Postgres that `npm start` runs when DATABASE_URL is not set. */
  embeddedPostgresPort: number;
  outboxPollMs: number;
  shutdownTimeoutMs: number;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, reason: string) {
    super(`configuration: ${variable} ${reason}`);
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

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

function subjectToken(env: Env, name: string, fallback: string, pattern: RegExp): string {
  const raw = str(env, name) ?? fallback;
  if (!pattern.test(raw)) throw new ConfigError(name, `has characters NATS does not allow here: "${raw}"`);
  return raw;
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
  return {
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    natsUrl: url(env, 'NATS_URL', ['nats:', 'tls:']),
    natsStream: subjectToken(env, 'NATS_STREAM', 'SVC_EVENTS', /^[A-Za-z0-9_-]+$/),
    natsSubjectPrefix: subjectToken(env, 'NATS_SUBJECT_PREFIX', 'svc.events', /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/),
    host: str(env, 'HOST') ?? '0.0.0.0',
    port: int(env, 'PORT', 8080, 0, 65535),
    grpcPort: int(env, 'GRPC_PORT', 50051, 0, 65535),
    peers,
    operatorToken,
    logLevel,
    dataDir: str(env, 'DATA_DIR') ?? '.data',
    embeddedPostgresPort: int(env, 'EMBEDDED_POSTGRES_PORT', 54329, 1, 65535),
    outboxPollMs: int(env, 'OUTBOX_POLL_MS', 250, 10, 60_000),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 300_000),
  };
}

/** A part started on its own needs Postgres, NATS and the addresses of the peers it calls. */
export function requireForPart(config: Config, part: PartName, peers: readonly ServiceName[]): void {
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL', `is required to run ${part} on its own`);
  if (!config.natsUrl) throw new ConfigError('NATS_URL', `is required to run ${part} on its own`);
  for (const peer of peers) {
    if (!config.peers[peer]) throw new ConfigError(peerVariable(peer), `is required: ${part} calls ${peer}`);
  }
}
