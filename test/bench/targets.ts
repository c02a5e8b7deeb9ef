import { randomBytes } from 'node:crypto';
import { deleteStream } from '../helpers/bus.js';
import { createTestDatabase } from '../helpers/database.js';
import { freePort, spawnPart, waitForHttp } from '../helpers/processes.js';
import { newMerchantKeyAt } from '../helpers/split-stack.js';
import { newSecret } from '../../services/shared/index.js';

/** A running deployment the benchmark sends payments to, with a test key of a fresh merchant. */
export interface BenchTarget {
  name: string;
  baseUrl: string;
  secret: string;
}

/** `npm start`'s entrypoint as its own process, on a fresh database and JetStream stream. */
export async function startAllInOne(natsUrl: string): Promise<BenchTarget & { close(): Promise<void> }> {
  const db = await createTestDatabase();
  const suffix = randomBytes(5).toString('hex');
  const stream = `SVC_BENCH_${suffix}`;
  const operatorToken = newSecret('svc_op_', 40);
  const port = await freePort();
  const part = spawnPart('all-in-one', 'services/all-in-one/main.js', {
    DATABASE_URL: db.url, NATS_URL: natsUrl, NATS_STREAM: stream, NATS_SUBJECT_PREFIX: `svcbench.${suffix}`,
    PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', OPERATOR_TOKEN: operatorToken,
    RATE_LIMIT_PER_MINUTE: '10000000', DATA_DIR: `/tmp/svc-bench-${suffix}`,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const close = async () => {
    await part.stop();
    await deleteStream(natsUrl, stream).catch(() => undefined);
    await db.drop();
  };
  try {
    await waitForHttp(part, `${baseUrl}/v1/me`);
    return { name: 'all-in-one', baseUrl, secret: await newMerchantKeyAt(baseUrl, operatorToken), close };
  } catch (err) {
    await close();
    throw err;
  }
}
