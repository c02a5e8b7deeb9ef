import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainError } from '../../services/contract/index.js';
import { isRole } from '../store/users.js';
import { can, requirePermission } from './roles.js';

test('owners do everything; developers all but the team and verification; read-only members only look', () => {
  assert.deepEqual(['view', 'operate', 'develop', 'administer'].map((p) => can('owner', p as never)), [true, true, true, true]);
  assert.deepEqual(['view', 'operate', 'develop', 'administer'].map((p) => can('developer', p as never)), [true, true, true, false]);
  assert.deepEqual(['view', 'operate', 'develop', 'administer'].map((p) => can('read_only', p as never)), [true, false, false, false]);
});

test('a refused permission is 403 forbidden naming the role', () => {
  assert.throws(() => requirePermission('read_only', 'develop'), (err: unknown) =>
    err instanceof DomainError && err.status === 403 && err.code === 'forbidden' && /read-only/.test(err.message));
  requirePermission('developer', 'operate');
});

test('roles are the three the schema allows', () => {
  assert.ok(isRole('owner') && isRole('developer') && isRole('read_only'));
  assert.ok(!isRole('admin') && !isRole('read-only') && !isRole(undefined));
});
