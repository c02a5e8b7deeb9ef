import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Code, ConnectError } from '@connectrpc/connect';
import { DomainError, ERRORS, fromConnectError, serviceError } from './errors.js';

test('the registry gives the contract status and type for its codes', () => {
  assert.deepEqual([ERRORS.unauthorized.status, ERRORS.unauthorized.type], [401, 'authentication_error']);
  assert.deepEqual([ERRORS.invalid_api_key.status, ERRORS.invalid_api_key.type], [401, 'authentication_error']);
  assert.deepEqual([ERRORS.ip_not_allowed.status, ERRORS.ip_not_allowed.type], [403, 'permission_error']);
  assert.deepEqual([ERRORS.forbidden.status, ERRORS.forbidden.type], [403, 'permission_error']);
  assert.equal(ERRORS.test_scenario_not_allowed.status, 400);
  assert.deepEqual([ERRORS.resource_not_found.status, ERRORS.resource_not_found.type], [404, 'not_found_error']);
  assert.equal(ERRORS.invalid_state_transition.status, 409);
  assert.equal(ERRORS.validation_error.status, 422);
  assert.deepEqual([ERRORS.rate_limited.status, ERRORS.rate_limited.type], [429, 'rate_limit_error']);
});

test('a service error crosses gRPC and comes back as the same domain error', () => {
  const thrown = serviceError('invalid_state_transition', 'cannot capture', { param: 'amount' });
  assert.equal(thrown.code, Code.FailedPrecondition);
  const back = fromConnectError(thrown);
  assert.ok(back instanceof DomainError);
  assert.equal(back.code, 'invalid_state_transition');
  assert.equal(back.status, 409);
  assert.equal(back.message, 'cannot capture');
  assert.equal(back.options.param, 'amount');
});

test('unexpected failures stay opaque; an unreachable peer is 503', () => {
  const internal = fromConnectError(new ConnectError('relation "x" does not exist', Code.Internal));
  assert.equal(internal.code, 'internal_error');
  assert.doesNotMatch(internal.message, /relation/);
  assert.equal(fromConnectError(new ConnectError('connect ECONNREFUSED', Code.Unavailable)).status, 503);
});
