import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainError } from '../contract/errors.js';
import { createDatabaseClock } from './database-clock.js';
import type { Pool } from './db.js';
import { createLogger } from './logger.js';

// A database whose clock runs `offsetMs` from this process's.
const databaseAt = (offsetMs: number) => ({
  query: async () => ({ rows: [{ ms: Date.now() + offsetMs }] }),
}) as unknown as Pool;
const logger = createLogger('test', 'silent');

test("the time told is the database's, whatever this process's clock says", async () => {
  const clock = createDatabaseClock({ pool: databaseAt(-90_000), logger, maxSkewMs: 600_000, intervalMs: 60_000 });
  assert.equal(Math.round((await clock.measure()) / 1000), 90, 'this process 90 s ahead');
  assert.equal(clock.trusted(), true);
  const told = clock.now().getTime() - (Date.now() - 90_000);
  assert.ok(Math.abs(told) < 50, `${told} ms from the database's clock`);
});

test('beyond the bound the clock is not trusted and refuses to tell the time (503)', async () => {
  const clock = createDatabaseClock({ pool: databaseAt(90_000), logger, maxSkewMs: 2_000, intervalMs: 60_000 });
  await clock.measure();
  assert.equal(clock.trusted(), false);
  assert.throws(() => clock.now(), (err) => err instanceof DomainError && err.code === 'service_unavailable');
});

test("a test's clock is told as it is, so tests still move time without sleeping", async () => {
  const moved = new Date('2031-01-01T00:00:00Z');
  const clock = createDatabaseClock({ pool: databaseAt(0), logger, maxSkewMs: 2_000, intervalMs: 60_000, base: { now: () => moved } });
  await clock.measure();
  assert.equal(clock.now().getTime(), moved.getTime());
});
