// `npm run migrate [part...]`: applies migrations and exits (a Kubernetes Job before rollout).
import { PART as gatewayPart } from '../gateway/index.js';
import { PART as ledger } from '../services/ledger/index.js';
import { PART as payments } from '../services/payments/index.js';
import { PART as payouts } from '../services/payouts/index.js';
import { PART as routingRisk } from '../services/routing-risk/index.js';
import { PART as webhooks } from '../services/webhooks/index.js';
import { ConfigError, loadConfig } from '../services/platform/config.js';
import { createPool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { migrate } from '../services/platform/migrate.js';
import { beginStartUp, exitOnStartupError } from '../services/platform/standalone.js';

const PARTS = [gatewayPart, payments, routingRisk, ledger, payouts, webhooks];

try {
  const config = loadConfig();
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL', 'is required to run migrations');
  const wanted = process.argv.slice(2);
  for (const name of wanted) {
    if (!PARTS.some((p) => p.name === name)) throw new ConfigError('argument', `"${name}" is not a part (${PARTS.map((p) => p.name).join(', ')})`);
  }
  // The Job may start before Postgres answers: each part's migrations wait for it as a part does.
  const startUp = beginStartUp(createLogger('migrate', config.logLevel), config);
  for (const part of PARTS.filter((p) => wanted.length === 0 || wanted.includes(p.name))) {
    const pool = createPool(config.databaseUrl, part.schema, 1);
    try {
      const applied = await startUp.step(`Postgres migrations (${part.name})`, () => migrate(pool, part.schema, part.dir));
      process.stdout.write(`${part.name}: ${applied.length ? applied.join(', ') : 'up to date'}\n`);
    } finally {
      await pool.end();
    }
  }
  startUp.done();
} catch (err) {
  exitOnStartupError(err);
}
