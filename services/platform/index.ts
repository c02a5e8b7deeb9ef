// The platform: the runtime every part and the gateway build on (config, logger, Postgres pool and
// migrations, outbox, event bus, rpc, telemetry, ids, clock and the small helpers they share). It
// promises nothing to merchants: what they see is declared in services/contract. Files imported by
// path rather than from here: bus/ and net/ (their own index.ts), operator-token.ts and
// base-url-file.ts (the CLI loads them without the runtime), csv.ts, outbox-* internals.
export * from './config.js';
export * from './logger.js';
export * from './db.js';
export * from './db-errors.js';
export * from './field-map.js';
export * from './migrate.js';
export * from './paths.js';
export * from './ids.js';
export * from './clock.js';
export * from './database-clock.js';
export * from './batcher.js';
export * from './group-commit.js';
export * from './deadline.js';
export * from './every.js';
export * from './list-lock.js';
export * from './idempotency-bindings.js';
export * from './outbox.js';
export * from './outbox-service.js';
export { OutboxPruner, pruneOutbox } from './outbox-retention.js';
export * from './bus/index.js';
export * from './rpc.js';
export * from './internal-callers.js';
export * from './health-watch.js';
export * from './metrics.js';
export * from './request-guards.js';
export * from './part.js';
export * from './standalone.js';
export { drainTimeMs } from './drain.js';
export * from './retry.js';
export * from './secret-box.js';
export * from './tracing.js';
export * from './internal-events.js';
