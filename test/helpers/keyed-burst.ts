// A keyed burst of payments against the six parts as processes, with the payments process killed
// (kill -9) and restarted mid-burst: what the connectors' crash tests share. Each client retries
// its key until it has a final answer or its time is up (keyed-client.ts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { chaosTag } from './chaos.js';
import { eventually } from './eventually.js';
import { keyedRequest, type KeyedOutcome } from './keyed-client.js';
import { startNatsServer, type NatsServer } from './nats-server.js';
import { startSplitStack, type SplitStack } from './split-stack.js';
import { request } from './stack.js';
import { STAND_IN_ORIGINS } from './stand-in-server.js';

export interface KeyedBurst {
  split: SplitStack;
  sql: pg.Pool;
  apiKey: string;
  /** The Idempotency-Keys, one payment each; every payment's `reference` is its key. */
  keys: string[];
  /** What the keys begin with: the burst's payments are those whose reference does. */
  prefix: string;
  clients: number;
  /** How many of the burst's payments are stored when payments is killed. */
  killAfterStored: number;
  /** The i-th payment's body, without its reference. */
  body(i: number): Record<string, unknown>;
}

/** Runs the burst and the kill together; answers each key's last outcome. */
export async function burstWithKill(b: KeyedBurst): Promise<Map<string, KeyedOutcome>> {
  const outcomes = new Map<string, KeyedOutcome>();
  let next = 0;
  const client = async () => {
    while (next < b.keys.length) {
      const i = next++;
      outcomes.set(b.keys[i], await keyedRequest({
        baseUrl: () => b.split.baseUrl, method: 'POST', path: '/v1/payments', apiKey: b.apiKey, idempotencyKey: b.keys[i],
        body: { ...b.body(i), reference: b.keys[i] },
        totalMs: 30_000,
      }));
    }
  };
  const killer = async () => {
    await eventually('the burst under way', async () => {
      const { rows } = await b.sql.query('SELECT count(*)::int AS n FROM payments.payments WHERE reference LIKE $1', [`${b.prefix}%`]);
      return rows[0].n >= b.killAfterStored ? true : undefined;
    });
    await b.split.restart('payments');
  };
  await Promise.all([killer(), ...Array.from({ length: b.clients }, client)]);
  return outcomes;
}

/** The burst's payments by key, with their status: exactly one per key when nothing was made twice. */
export async function paymentsByKey(sql: pg.Pool, prefix: string, keys: string[]) {
  const { rows } = await sql.query('SELECT reference, id, status FROM payments.payments WHERE reference LIKE $1', [`${prefix}%`]);
  const byKey = new Map<string, Array<{ id: string; status: string }>>(keys.map((k) => [k, []]));
  for (const r of rows) byKey.get(r.reference)!.push({ id: r.id, status: r.status });
  return byKey;
}

/**
 * Each payment's count of successful ledger movements, once the ledger (which records from the
 * events, after the fact) has a row for every one of `ids`; fails naming `what` after a minute.
 */
export function ledgerMovements(sql: pg.Pool, ids: string[], what: string): Promise<Array<{ entity_id: string; n: number }>> {
  return eventually(what, async () => {
    const { rows } = await sql.query(
      `SELECT entity_id, count(*) FILTER (WHERE status = 'successful')::int AS n FROM ledger.transactions
       WHERE type = 'payment' AND entity_type = 'payment' AND entity_id = ANY($1) GROUP BY entity_id`, [ids]);
    return rows.length === ids.length ? rows : undefined;
  }, 60_000);
}

/**
 * The parts' environment in the connectors' crash tests: a fast reconciliation sweep, a short
 * provider deadline (answers held back past it are lost), no rate limit, and the stand-ins' origins allowed.
 */
export function chaosEnv(providerTimeoutMs = 500): Record<string, string> {
  return {
    RECONCILIATION_SWEEP_MS: '200',
    PROVIDER_TIMEOUT_MS: String(providerTimeoutMs),
    RATE_LIMIT_PER_MINUTE: '1000000',
    PROVIDER_SECRET_KEY: randomBytes(32).toString('hex'),
    PROVIDER_BASE_URL_ALLOWLIST: STAND_IN_ORIGINS,
  };
}

export interface ChaosMerchant {
  projectId: string;
  /** The test-mode account at the provider under test. */
  accountId: string;
  /** A test-mode API key of the project. */
  apiKey: string;
}

type ChaosMerchantOptions = { merchant: string; provider: string; account: string; credentials: Record<string, unknown> };

/** A merchant whose project has a test-mode account at `provider` and a test API key. */
export async function chaosMerchant(split: SplitStack, opts: ChaosMerchantOptions): Promise<ChaosMerchant> {
  const manage = async (path: string, body: unknown) => {
    const res = await request(split.baseUrl, 'POST', `/manage/v1${path}`, { key: split.operatorToken, body });
    assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const projectId = (await manage('/merchants', { name: opts.merchant })).project.id as string;
  const account = await manage(`/projects/${projectId}/provider-accounts`, {
    mode: 'test', provider: opts.provider, name: opts.account, credentials: opts.credentials,
  });
  const key = await manage(`/projects/${projectId}/keys`, { mode: 'test', name: 'test' });
  return { projectId, accountId: account.id, apiKey: key.secret };
}

export interface ChaosBurstRun extends ChaosMerchant {
  /** The burst's Idempotency-Keys, one payment each, and what they begin with (a chaosTag). */
  keys: string[];
  prefix: string;
  /** The burst's payments by key (paymentsByKey). */
  paymentsByKey(): ReturnType<typeof paymentsByKey>;
  split: SplitStack;
  /** A small pool on the parts' database, for the checks' own queries. */
  sql: pg.Pool;
  /** Each key's last outcome in the burst. */
  outcomes: Map<string, KeyedOutcome>;
  /** Ends the pool, then stops the parts and NATS (not the provider's stand-in, which the test started). */
  close(): Promise<void>;
}

export type ChaosBurstOptions = Omit<ChaosMerchantOptions, 'credentials'>
  & Pick<KeyedBurst, 'clients' | 'killAfterStored' | 'body'>
  & {
    /** Names the run's keys (chaosTag). */
    tag: string;
    /** How many payments the burst makes. */
    payments: number;
    /** The account's credentials, given the parts (an account may name their base URL). */
    credentials(split: SplitStack): Record<string, unknown>;
  };

/**
 * A connector's crash test up to its checks: NATS, the six parts as processes (chaosEnv), the
 * merchant with its account at the provider, then the burst with payments killed mid-way. What was
 * started before a failure is stopped again before the error is thrown.
 */
export async function runChaosBurst(opts: ChaosBurstOptions): Promise<ChaosBurstRun> {
  const { credentials, merchant, provider, account, tag, payments, ...burst } = opts;
  const prefix = `${chaosTag(tag)}_`;
  const keys = Array.from({ length: payments }, (_, i) => `${prefix}${i}`);
  let nats: NatsServer | undefined;
  let split: SplitStack | undefined;
  let sql: pg.Pool | undefined;
  const close = async () => {
    await sql?.end();
    await split?.close();
    await nats?.close();
  };
  try {
    nats = await startNatsServer();
    split = await startSplitStack(nats.url, chaosEnv());
    sql = new pg.Pool({ connectionString: split.db.url, max: 3 });
    const m = await chaosMerchant(split, { merchant, provider, account, credentials: credentials(split) });
    const outcomes = await burstWithKill({ ...burst, keys, prefix, split, sql, apiKey: m.apiKey });
    const pool = sql;
    return { ...m, keys, prefix, paymentsByKey: () => paymentsByKey(pool, prefix, keys), split, sql, outcomes, close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}
