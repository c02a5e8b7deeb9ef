import { randomBytes } from 'node:crypto';
import { peerVariable, SERVICE_NAMES, type ServiceName } from '../../services/platform/config.js';
import { newSecret } from '../../services/platform/ids.js';
import { newInternalToken } from '../../services/platform/internal-callers.js';
import { deleteStream } from './bus.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { request } from './stack.js';
import { freePort, killPart, spawnPart, waitForHealth, waitForHttp, type PartProcess } from './processes.js';

export interface SplitStack {
  baseUrl: string;
  operatorToken: string;
  /** INTERNAL_TOKEN of every part: the credential they admit for every project. */
  internalToken: string;
  /** WEBHOOK_SECRET_KEY of the webhooks part, which refuses to start alone without one. */
  webhookSecretKey: string;
  serviceUrls: Record<ServiceName, string>;
  /** The five services, then the gateway. */
  parts: PartProcess[];
  stream: string;
  subjectPrefix: string;
  db: TestDatabase;
  /** SIGTERM to every part (gateway first); their exit codes by name. */
  stop(): Promise<Record<string, number | null>>;
  /** stop() plus dropping the database and the stream. */
  close(): Promise<void>;
  /** kill -9 of the named part (a service or a gateway); resolves once it is gone. */
  kill(name: string): Promise<void>;
  /** Starts the named part again with the same environment (plus `env`, kept for later restarts) and port; resolves once it answers. */
  restart(name: string, env?: Record<string, string>): Promise<PartProcess>;
  /**
   * Another replica of a service part: the same environment plus `env`, on a gRPC port of its own
   * that no peer calls (its background work shares the database and the stream); stopped by stop().
   * Resolves once it is SERVING, or with `serving: false` once it is running.
   */
  addReplica(
    name: ServiceName, replica: string, env: Record<string, string>, opts?: { serving?: boolean },
  ): Promise<PartProcess & { url: string }>;
  /** Another gateway process with the same environment on a port of its own (stopped by stop()). */
  addGateway(name: string): Promise<{ baseUrl: string; process: PartProcess }>;
}

/**
 * The six parts as separate processes over real gRPC, on a fresh database and JetStream stream.
 * `env` goes to every part; `partEnv` to one service part on top of it; `entries` runs a service
 * part from another compiled entrypoint (e.g. `test/helpers/slow-payouts-part.js`) than its main.
 */
export async function startSplitStack(
  natsUrl: string, env: Record<string, string> = {}, partEnv: Partial<Record<ServiceName, Record<string, string>>> = {},
  entries: Partial<Record<ServiceName, string>> = {},
): Promise<SplitStack> {
  const db = await createTestDatabase();
  const suffix = randomBytes(5).toString('hex');
  const stream = `SVC_SPLIT_${suffix}`;
  const subjectPrefix = `svcsplit.${suffix}`;
  const operatorToken = newSecret('svc_op_', 40);
  const internalToken = newInternalToken();
  const webhookSecretKey = randomBytes(32).toString('hex');
  const serviceUrls = {} as Record<ServiceName, string>;
  for (const s of SERVICE_NAMES) serviceUrls[s] = `http://127.0.0.1:${await freePort()}`;
  const gatewayPort = await freePort();
  const common: Record<string, string> = {
    DATABASE_URL: db.url,
    NATS_URL: natsUrl,
    NATS_STREAM: stream,
    NATS_SUBJECT_PREFIX: subjectPrefix,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    OUTBOX_POLL_MS: '50',
    // Two six-process stacks run side by side in CI on a server of 100 connections.
    DATABASE_POOL_SIZE: '4',
    OPERATOR_TOKEN: operatorToken,
    INTERNAL_TOKEN: internalToken,
    WEBHOOK_SECRET_KEY: webhookSecretKey,
    ...Object.fromEntries(SERVICE_NAMES.map((s) => [peerVariable(s), serviceUrls[s]])),
    ...env,
  };
  // How each part was started, so it can be started again exactly so.
  const launches = new Map<string, { entry: string; env: Record<string, string>; ready: (p: PartProcess) => Promise<void> }>();
  const launch = (name: string) => {
    const { entry, env } = launches.get(name)!;
    return spawnPart(name, entry, env);
  };
  for (const s of SERVICE_NAMES) {
    launches.set(s, {
      entry: entries[s] ?? `services/${s}/main.js`, env: { ...common, ...partEnv[s], GRPC_PORT: new URL(serviceUrls[s]).port },
      ready: (p) => waitForHealth(p, serviceUrls[s]),
    });
  }
  const gatewayLaunch = (port: number) => ({
    entry: 'gateway/main.js', env: { ...common, PORT: String(port) },
    ready: (p: PartProcess) => waitForHttp(p, `http://127.0.0.1:${port}/v1/me`),
  });
  launches.set('gateway', gatewayLaunch(gatewayPort));
  const parts = SERVICE_NAMES.map((s) => launch(s));
  const gateway = launch('gateway');
  parts.push(gateway);
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
  const partNamed = (name: string) => {
    const part = parts.find((p) => p.name === name);
    if (!part) throw new Error(`no part named ${name}`);
    return part;
  };
  let stopped: Record<string, number | null> | undefined;
  const stop = async () => {
    if (!stopped) {
      stopped = {};
      for (const p of [...parts].reverse()) stopped[p.name] = await p.stop();
    }
    return stopped;
  };
  try {
    await Promise.all(parts.slice(0, SERVICE_NAMES.length).map((p) => waitForHealth(p, serviceUrls[p.name as ServiceName])));
    await waitForHttp(gateway, `${baseUrl}/v1/me`);
  } catch (err) {
    await stop();
    await db.drop();
    throw err;
  }
  return {
    baseUrl, operatorToken, internalToken, webhookSecretKey, serviceUrls, parts, stream, subjectPrefix, db, stop,
    kill: (name) => killPart(partNamed(name)),
    async restart(name, env) {
      const old = partNamed(name);
      await killPart(old);
      if (env) launches.get(name)!.env = { ...launches.get(name)!.env, ...env };
      const fresh = launch(name);
      parts[parts.indexOf(old)] = fresh;
      await launches.get(name)!.ready(fresh);
      return fresh;
    },
    async addReplica(name, replica, env, opts = {}) {
      const url = `http://127.0.0.1:${await freePort()}`;
      const of = launches.get(name)!;
      launches.set(replica, { entry: of.entry, env: { ...of.env, ...env, GRPC_PORT: new URL(url).port }, ready: (p) => waitForHealth(p, url) });
      const process = launch(replica);
      parts.push(process);
      if (opts.serving !== false) await launches.get(replica)!.ready(process);
      return Object.assign(process, { url });
    },
    async addGateway(name) {
      const port = await freePort();
      launches.set(name, gatewayLaunch(port));
      const process = launch(name);
      parts.push(process);
      await launches.get(name)!.ready(process);
      return { baseUrl: `http://127.0.0.1:${port}`, process };
    },
    async close() {
      await stop();
      await deleteStream(natsUrl, stream).catch(() => undefined);
      await db.drop();
    },
  };
}

/** A fresh merchant's test-mode secret key, made through the stack's management API. */
export function newSplitMerchantKey(split: SplitStack): Promise<string> {
  return newMerchantKeyAt(split.baseUrl, split.operatorToken);
}

/** The same through any deployment's management API, with its operator token. */
export async function newMerchantKeyAt(baseUrl: string, operatorToken: string): Promise<string> {
  const manage = (method: string, path: string, body?: unknown) =>
    request(baseUrl, method, `/manage/v1${path}`, { key: operatorToken, body });
  const merchant = await manage('POST', '/merchants', { name: 'Split merchant' });
  if (merchant.status !== 201) throw new Error(`creating a merchant: ${merchant.status} ${JSON.stringify(merchant.body)}`);
  const key = await manage('POST', `/projects/${merchant.body.project.id}/keys`, { mode: 'test', name: 'test' });
  if (key.status !== 201) throw new Error(`creating a key: ${key.status} ${JSON.stringify(key.body)}`);
  return key.body.secret;
}
