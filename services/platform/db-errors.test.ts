import assert from 'node:assert/strict';
import { test } from 'node:test';
import { databaseUnavailable, lostConnection } from './db-errors.js';

const pgError = (code: string) => Object.assign(new Error(`postgres said ${code}`), { code });

test('a database down, full, unreachable or too slow is unavailable; a bug or bad data is not', () => {
  const unavailable = [
    pgError('53100'), pgError('53200'), pgError('53300'), pgError('57P01'), pgError('57P03'), pgError('08006'),
    pgError('58030'), pgError('57014'), pgError('25P03'), pgError('ECONNREFUSED'),
    new Error('Query read timeout'), new Error('timeout exceeded when trying to connect'),
    new Error('Connection terminated unexpectedly'),
    new AggregateError([pgError('ECONNREFUSED'), pgError('ECONNREFUSED')]),
  ];
  for (const err of unavailable) assert.equal(databaseUnavailable(err), true, err.message);
  for (const err of [pgError('23505'), pgError('42P01'), pgError('22P02'), new Error('boom'), new TypeError('x is undefined'), undefined]) {
    assert.equal(databaseUnavailable(err), false, String(err));
  }
});

test('only a dead or stuck connection is lost: a full disk leaves it usable', () => {
  assert.equal(lostConnection(new Error('Query read timeout')), true);
  assert.equal(lostConnection(pgError('08006')), true);
  assert.equal(lostConnection(pgError('53100')), false);
  assert.equal(lostConnection(pgError('57014')), false);
});
