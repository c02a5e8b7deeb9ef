import { randomBytes } from 'node:crypto';
import { newSecret, peerVariable, SERVICE_NAMES, type ServiceName } from '../../services/shared/index.js';
import { deleteStream } from './bus.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { freePort, spawnPart, waitForHealth, waitForHttp, type PartProcess } from './processes.js';

export interface SplitStack {
  baseUrl: string;
  operatorToken: string;
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
}

/** The six parts as separate processes over real gRPC, on a fresh database and JetStream stream. */
export async function startSplitStack(natsUrl: string, env: Record<string, string> = {}): Promise<SplitStack> {
  const db = await createTestDatabase();
  const suffix = randomBytes(5).toString('hex');
  const stream = `SVC_SPLIT_${suffix}`;
  const subjectPrefix = `svcsplit.${suffix}`;
  const operatorToken = newSecret('svc_op_', 40);
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
    OPERATOR_TOKEN: operatorToken,
    ...Object.fromEntries(SERVICE_NAMES.map((s) => [peerVariable(s), serviceUrls[s]])),
    ...env,
  };
  const parts = SERVICE_NAMES.map((s) =>
    spawnPart(s, `services/${s}/main.js`, { ...common, GRPC_PORT: new URL(serviceUrls[s]).port }));
  const gateway = spawnPart('gateway', 'gateway/main.js', { ...common, PORT: String(gatewayPort) });
  parts.push(gateway);
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
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
    baseUrl, operatorToken, serviceUrls, parts, stream, subjectPrefix, db, stop,
    async close() {
      await stop();
      await deleteStream(natsUrl, stream).catch(() => undefined);
      await db.drop();
    },
  };
}
