import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { newMerchantKeyAt } from '../helpers/split-stack.js';
import { createTestBus } from '../helpers/bus.js';
import { createTestDatabase } from '../helpers/database.js';

// The six parts in the bench's own process (the same code as in their own processes, as `npm
// start` runs them) of the build at `root`, on a fresh database and stream, with a merchant key:
// so the bench can wrap that build's `pg` and count what each part sends.

export interface InProcessStack {
  baseUrl: string;
  /** A test-mode secret key of a new merchant. */
  secret: string;
  close(): Promise<void>;
}

export async function startInProcessStack(root: string, natsUrl: string): Promise<InProcessStack> {
  const load = (p: string) => import(pathToFileURL(join(root, 'dist', p)).href);
  const { startStack } = await load('all-in-one/stack.js');
  const shared = {
    ...(await load('services/platform/ids.js')), ...(await load('services/platform/bus/index.js')),
    ...(await load('services/platform/logger.js')), ...(await load('services/platform/config.js')),
  };
  const db = await createTestDatabase();
  const testBus = await createTestBus();
  const operatorToken = shared.newSecret('svc_op_', 40);
  const bus = await shared.JetStreamBus.connect({
    ...testBus.nats!, url: natsUrl, logger: shared.createLogger('bench', 'silent'), name: 'bench',
  });
  const config = shared.loadConfig({
    HOST: '127.0.0.1', PORT: '0', OPERATOR_TOKEN: operatorToken, RATE_LIMIT_PER_MINUTE: '10000000',
    NATS_STREAM: testBus.nats!.stream, NATS_SUBJECT_PREFIX: testBus.nats!.subjectPrefix,
  });
  const stack = await startStack({ config, databaseUrl: db.url, bus, logger: shared.createLogger('bench', 'silent') });
  return {
    baseUrl: stack.baseUrl,
    secret: await newMerchantKeyAt(stack.baseUrl, operatorToken),
    async close() {
      await stack.close();
      await bus.close();
      await testBus.close();
      await db.drop();
    },
  };
}
