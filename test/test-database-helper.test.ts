import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase } from './helpers/database.js';
import { freePort } from './helpers/processes.js';

// A test file's before-hook that could not get its database only cancelled its tests,
// with the cause nowhere. The helper's error now says where and why (never the password).

test('a database server that cannot be reached fails createTestDatabase with the address and the cause, no password', async () => {
  const saved = process.env.DATABASE_URL;
  const port = await freePort(); // nothing listens there
  process.env.DATABASE_URL = `postgres://postgres:s3cret-pw@127.0.0.1:${port}/postgres`;
  try {
    await assert.rejects(createTestDatabase(), (err: Error) => {
      assert.match(err.message, new RegExp(`^could not create the test database on postgres://postgres@127\\.0\\.0\\.1:${port}/postgres: .*ECONNREFUSED`));
      assert.doesNotMatch(err.message, /s3cret-pw/);
      return true;
    });
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
});
