import assert from 'node:assert/strict';
import { test } from 'node:test';
import { earlyExit } from './embedded-postgres.js';

// The package rejects with nothing when Postgres stops while starting; the reason is in its log.

test('a data folder another Postgres holds: names DATA_DIR and the other PID', () => {
  const log = '2026-11-27 17:00:00.000 UTC [4711] FATAL:  lock file "postmaster.pid" already exists\n' +
    '2026-11-27 17:00:00.000 UTC [4711] HINT:  Is another postmaster (PID 1234) running in data directory "/x/.data/postgres"?\n';
  assert.equal(earlyExit(log, '/x/.data/postgres', 54329).message,
    'the embedded Postgres\'s data in /x/.data/postgres is in use by another Postgres (PID 1234), perhaps another `npm start` ' +
    'with the same DATA_DIR. Stop it, or give this one its own DATA_DIR.');
});

test('a port taken after the check: names EMBEDDED_POSTGRES_PORT', () => {
  const log = 'LOG:  could not bind IPv4 address "127.0.0.1": Address already in use\nFATAL:  could not create any TCP/IP sockets\n';
  assert.match(earlyExit(log, '/x', 54329).message, /^port 54329 of the embedded Postgres \(EMBEDDED_POSTGRES_PORT\) is already in use/);
});

test('anything else: its last FATAL line, never "undefined"', () => {
  const log = 'LOG:  starting\nFATAL:  data directory "/x" has invalid permissions\nLOG:  shut down\n';
  assert.equal(earlyExit(log, '/x', 54329).message,
    'the embedded Postgres stopped while starting: FATAL:  data directory "/x" has invalid permissions (its data: /x)');
  assert.equal(earlyExit('', '/x', 54329).message, 'the embedded Postgres stopped while starting: no message (its data: /x)');
});
