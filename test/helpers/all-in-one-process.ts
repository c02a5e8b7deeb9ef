import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteStream } from './bus.js';
import { createTestDatabase } from './database.js';
import { freePort, spawnPart, waitForHttp, type PartProcess } from './processes.js';
import { newMerchantKeyAt } from './split-stack.js';
import { newSecret } from '../../services/platform/ids.js';

// `npm start`'s process (or another entry built like it) on the real Postgres and NATS, each on a
// fresh database and JetStream stream: the benchmarks load it, the shutdown test signals it.

/** A running deployment, with a test key of a fresh merchant. */
export interface DeploymentTarget {
  name: string;
  baseUrl: string;
  secret: string;
}

export interface AllInOneProcess extends DeploymentTarget {
  process: PartProcess;
  operatorToken: string;
  /** Its own database, on DATABASE_URL's server. */
  databaseUrl: string;
  close(): Promise<void>;
}

/** Another entry than `npm start`'s (the metrics-overhead bench's server), with extra environment. */
export interface AllInOneVariant {
  name: string;
  entry: string;
  env: Record<string, string>;
}

/** `npm start`'s entrypoint as its own process, on a fresh database and JetStream stream. */
export async function startAllInOne(
  /** Without one (a laptop), the process's in-process bus. */
  natsUrl: string | undefined,
  variant: AllInOneVariant = { name: 'all-in-one', entry: 'all-in-one/main.js', env: {} },
): Promise<AllInOneProcess> {
  const db = await createTestDatabase();
  const suffix = randomBytes(5).toString('hex');
  const stream = `SVC_BENCH_${suffix}`;
  const operatorToken = newSecret('svc_op_', 40);
  const port = await freePort();
  const dataDir = join(tmpdir(), `svc-bench-${suffix}`);
  const part = spawnPart(variant.name, variant.entry, {
    DATABASE_URL: db.url, ...(natsUrl ? { NATS_URL: natsUrl, NATS_STREAM: stream, NATS_SUBJECT_PREFIX: `svcbench.${suffix}` } : {}),
    PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', OPERATOR_TOKEN: operatorToken,
    RATE_LIMIT_PER_MINUTE: '10000000', DATA_DIR: dataDir, ...variant.env,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const close = async () => {
    await part.stop();
    if (natsUrl) await deleteStream(natsUrl, stream).catch(() => undefined);
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHttp(part, `${baseUrl}/v1/me`);
    return {
      name: variant.name, baseUrl, secret: await newMerchantKeyAt(baseUrl, operatorToken), process: part, operatorToken,
      databaseUrl: db.url, close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
