import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lapsedGrant } from './stream-guard.js';

test('a revoked key ends its stream; an allow-list ends it only when it excludes the stream\'s address', () => {
  assert.equal(lapsedGrant(undefined, '192.0.2.1'), 'revoked');
  assert.equal(lapsedGrant(undefined, undefined), 'revoked');
  assert.equal(lapsedGrant([], '192.0.2.1'), undefined, 'an empty list restricts nothing');
  assert.equal(lapsedGrant(['192.0.2.0/24'], '192.0.2.1'), undefined);
  assert.equal(lapsedGrant(['198.51.100.7'], '192.0.2.1'), 'ip_not_allowed');
  assert.equal(lapsedGrant(['192.0.2.0/24'], undefined), 'ip_not_allowed', 'an unknown address fails closed');
  assert.equal(lapsedGrant(['::ffff:192.0.2.0/120'], '192.0.2.9'), undefined, 'mapped ranges match as at admission');
});
