// The shared runtime library: the only code every part imports.
export * from './config.js';
export * from './logger.js';
export * from './db.js';
export * from './migrate.js';
export * from './paths.js';
export * from './ids.js';
export * from './clock.js';
export * from './batcher.js';
export * from './deadline.js';
export * from './every.js';
export * from './errors.js';
export * from './events.js';
export * from './outbox.js';
export * from './bus/index.js';
export * from './rpc.js';
export * from './part.js';
export * from './standalone.js';
