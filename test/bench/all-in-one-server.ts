// The metrics-overhead bench's server: the all-in-one stack (startStack, as `npm start` builds it on
// DATABASE_URL and NATS_URL) with no metrics registry, or with one served on METRICS_PORT when
// BENCH_METRICS=1. main.ts always builds a registry, so the "without" side needs its own entry.
// BENCH_PROFILE=<path> lets the bench profile a window of the run (cpu-profile.ts).
import { startStack } from '../../all-in-one/stack.js';
import { JetStreamBus } from '../../services/platform/bus/index.js';
import { loadConfig } from '../../services/platform/config.js';
import { createLogger } from '../../services/platform/logger.js';
import { Metrics, serveMetrics } from '../../services/platform/metrics.js';
import { profileOnSignal } from './cpu-profile.js';

if (process.env.BENCH_PROFILE) profileOnSignal(process.env.BENCH_PROFILE);

const config = loadConfig(process.env);
const logger = createLogger('svc', config.logLevel);
const bus = await JetStreamBus.connect({
  url: config.natsUrl!, stream: config.natsStream, subjectPrefix: config.natsSubjectPrefix, logger, name: 'svc',
});
const metrics = process.env.BENCH_METRICS === '1' ? new Metrics() : undefined;
const stack = await startStack({ config, databaseUrl: config.databaseUrl!, bus, logger, metrics });
const metricsServer = metrics ? await serveMetrics(metrics, Number(process.env.METRICS_PORT), '127.0.0.1') : undefined;
process.on('SIGTERM', async () => {
  await metricsServer?.close();
  await stack.close();
  await bus.close();
  process.exit(0);
});
