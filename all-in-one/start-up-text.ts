// What `npm start` prints once it serves, after making the first merchant on a fresh database:
// written once, whether one process serves or several workers do (workers.ts).
import { DASHBOARD_PATH, DOCS_PATH, OPENAPI_PATH, bootstrapLocal, localProject } from '../gateway/index.js';
import { writeBaseUrl } from '../services/platform/base-url-file.js';
import { systemClock } from '../services/platform/clock.js';
import type { Config } from '../services/platform/config.js';
import { createPool } from '../services/platform/db.js';
import { operatorTokenPath } from '../services/platform/operator-token.js';

// How the start-up text names the management CLI run from this folder.
const CLI = 'node bin/svc.js';

export interface Serving {
  config: Config;
  databaseUrl: string;
  baseUrl: string;
  embedded: boolean;
  /** The keys made in or read from DATA_DIR (local-keys.ts). */
  localKeys: string[];
  workers: number;
  metricsPort?: number;
}

/** First start: the local merchant, key and sign-in link (made here, once); then the start-up text. */
export async function announce(s: Serving): Promise<void> {
  const { config, baseUrl } = s;
  const gatewayPool = createPool(s.databaseUrl, 'gateway', 1);
  const first = await bootstrapLocal(gatewayPool, systemClock, config);
  const project = first ? undefined : await localProject(gatewayPool);
  await gatewayPool.end();
  // For `node bin/svc.js` run from this folder, whatever PORT this start listens on.
  await writeBaseUrl(config.dataDir, baseUrl);

  const lines = [
    '',
    `svc is running at ${baseUrl}`,
    `  dashboard: ${baseUrl}${DASHBOARD_PATH}/${first ? ' (sign in with the link below to see the test key\'s payments)' : ''}`,
    `  API reference: ${baseUrl}${DOCS_PATH} (OpenAPI document: ${baseUrl}${OPENAPI_PATH})`,
    ...(s.metricsPort !== undefined ? [`  Prometheus metrics: http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${s.metricsPort}/metrics`] : []),
    `  database: ${s.embedded ? 'embedded Postgres' : 'DATABASE_URL'}; events: ${config.natsUrl ? 'NATS JetStream' : 'in-process bus'}`,
    ...(s.workers > 1 ? [`  workers: ${s.workers} processes share the port (WORKERS)`] : []),
    ...(s.localKeys.length > 0 ? [`  ${s.localKeys.join(', ')}: from ${config.dataDir} (made on first start; keep them with the database)`] : []),
  ];
  if (first) {
    lines.push(
      `  merchant ${first.merchant.id}, project ${first.project.id}`,
      `  test API key (shown once, keep it): ${first.secret}`,
      `  dashboard sign-in link for this merchant's owner (shown once; works once, until ${first.ownerLink.expires_at};`,
      '  open it, then choose the email and password you will sign in with):',
      `    ${first.ownerLink.url}`,
      '',
      'Make a payment:',
      `  curl -s ${baseUrl}/v1/payments -H "Authorization: Bearer ${first.secret}" \\`,
      `    -H 'content-type: application/json' -d '{"amount":1000,"currency":"EUR","payment_method":"card"}'`,
    );
  } else if (project) {
    lines.push(
      `  merchant ${project.merchantId}, project ${project.id}`,
      `  create more keys with: ${CLI} key create --project ${project.id} --mode test --name NAME`,
      project.owners.length > 0
        ? `  sign in to the dashboard as its owner (${project.owners.join(', ')}), or get a one-time sign-in link: ${CLI} merchant sign-in-link ${project.merchantId}`
        : `  sign in to the dashboard with a one-time link for its owner: ${CLI} merchant sign-in-link ${project.merchantId}`,
    );
  }
  if (!process.env.OPERATOR_TOKEN) lines.push(`  operator token for \`${CLI}\`: ${operatorTokenPath(config.dataDir)}`);
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
