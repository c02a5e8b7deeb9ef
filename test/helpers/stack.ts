import pg from 'pg';
import { ONE_PROCESS_DEFAULTS, startStack, type Stack } from '../../all-in-one/stack.js';
import type { Connector, ProviderDefinition } from '../../services/payments/index.js';
import type { PayoutConnector } from '../../services/payouts/index.js';
import type { Mode } from '../../services/contract/enums.js';
import type { Clock } from '../../services/platform/clock.js';
import { loadConfig } from '../../services/platform/config.js';
import { newSecret } from '../../services/platform/ids.js';
import { createLogger, type Logger } from '../../services/platform/logger.js';
import { Metrics } from '../../services/platform/metrics.js';
import { startTracing } from '../../services/platform/tracing.js';
import { createTestBus, type TestBus } from './bus.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { STAND_IN_ORIGINS } from './stand-in-server.js';

import { Mailbox } from './mailbox.js';

export interface TestStack extends Stack {
  db: TestDatabase;
  testBus: TestBus;
  operatorToken: string;
  /** Every mail the dashboard sent (password resets, invitations, registration links). */
  mailbox: Mailbox;
  /** The stack's metrics registry (test/metrics.test.ts serves and scrapes it). */
  metrics: Metrics;
  /**
   * A query on the stack's database, for what the API does not show. The pool behind it (two
   * connections: CI runs several stacks on one server) opens at the first query and ends with the
   * stack; a test that needs one connection throughout (BEGIN … COMMIT) opens its own client.
   */
  query<R extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Calls the management API as the operator. */
  manage(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A merchant with its default project and a key of the given mode (verifying the merchant for live). */
  newMerchantKey(mode?: Mode): Promise<{ merchantId: string; projectId: string; keyId: string; secret: string }>;
}

export async function request(
  baseUrl: string, method: string, path: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * Real time plus an offset the test moves (`clock.offsetMs += …`): ids stay time-ordered while
 * hours or days pass in an instant.
 */
export function offsetClock(): Clock & { offsetMs: number } {
  const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };
  return clock;
}

/** All six parts in this process on a fresh database and (with NATS_URL) a fresh JetStream stream. */
export async function startTestStack(
  opts: {
    logger?: Logger; clock?: Clock; env?: Record<string, string>;
    connectors?: Record<string, Connector>; payoutConnectors?: Record<string, PayoutConnector>;
    /** The providers' definitions, PROVIDERS unless a test adds its own (test/providers/). */
    providers?: readonly ProviderDefinition[];
    metrics?: Metrics;
    /** The deployment's own mailer (SMTP_HOST's server, else the log) instead of the test mailbox. */
    configuredMailer?: boolean;
    /** Real JetStream even on a laptop: this server's (jetStreamForFile()) instead of NATS_URL's. */
    natsUrl?: string;
    /** A database of the test's own, kept when the stack closes (a restart on the same data); else a fresh one, dropped. */
    database?: TestDatabase;
  } = {},
): Promise<TestStack> {
  const db = opts.database ?? await createTestDatabase();
  const testBus = await createTestBus(opts.natsUrl);
  const operatorToken = newSecret('svc_op_', 40);
  const config = loadConfig({
    ...ONE_PROCESS_DEFAULTS,
    HOST: '127.0.0.1',
    PORT: '0',
    OPERATOR_TOKEN: operatorToken,
    OUTBOX_POLL_MS: '50',
    // Off unless a test turns it on: a daily sync would otherwise call the stand-ins of long-lived stacks.
    SETTLEMENT_SYNC_INTERVAL_MS: '0',
    // Tests register and sign in many users from one loopback address; test/security-auth-throttles.test.ts
    // runs with the deployment's per-address limits.
    AUTH_THROTTLE_PER_MINUTE: '10000',
    SIGN_IN_THROTTLE_PER_MINUTE: '10000',
    NATS_STREAM: testBus.nats?.stream,
    NATS_SUBJECT_PREFIX: testBus.nats?.subjectPrefix,
    // Accounts of the tests' stand-in providers (api_base_url on loopback) by the operator's opt-in.
    PROVIDER_BASE_URL_ALLOWLIST: STAND_IN_ORIGINS,
    // IN_PROCESS_CALLS=router: the parts call each other through the router transport (scripts/run-tests.mjs runs some files so).
    IN_PROCESS_CALLS: process.env.IN_PROCESS_CALLS,
    ...opts.env,
  });
  // As all-in-one/main.ts does: with OTEL_EXPORTER_OTLP_ENDPOINT in env, before the parts are built.
  const tracing = await startTracing('svc', config);
  // Without default process metrics: a test process holds several stacks, and they are the process's anyway.
  const metrics = opts.metrics ?? new Metrics({ defaults: false });
  const mailbox = new Mailbox();
  const stack = await startStack({
    mailer: opts.configuredMailer ? undefined : mailbox,
    metrics,
    config,
    databaseUrl: db.url,
    bus: testBus.bus,
    logger: opts.logger ?? createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    clock: opts.clock,
    connectors: opts.connectors,
    providers: opts.providers,
    payoutConnectors: opts.payoutConnectors,
    freezeInProcessMessages: true,
  });
  let pool: pg.Pool | undefined;
  const manage = async (method: string, path: string, body?: unknown) =>
    request(stack.baseUrl, method, `/manage/v1${path}`, { key: operatorToken, body });
  return {
    ...stack,
    db,
    testBus,
    operatorToken,
    mailbox,
    metrics,
    query: (sql, params) => (pool ??= new pg.Pool({ connectionString: db.url, max: 2 })).query(sql, params),
    manage,
    async newMerchantKey(mode = 'test') {
      const created = await manage('POST', '/merchants', { name: 'Test merchant' });
      const merchantId = created.body.merchant.id;
      const projectId = created.body.project.id;
      if (mode === 'live') await manage('POST', `/merchants/${merchantId}/verify`);
      const key = await manage('POST', `/projects/${projectId}/keys`, { mode, name: `${mode} key` });
      return { merchantId, projectId, keyId: key.body.id, secret: key.body.secret };
    },
    async close() {
      await pool?.end();
      await stack.close();
      await testBus.close();
      if (!opts.database) await db.drop();
      await tracing?.shutdown();
    },
  };
}
