import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainError } from '../../services/contract/index.js';
import { checkPasswordRules, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';

test('a password hashes to scrypt with its parameters and a fresh salt, and verifies only itself', async () => {
  const hash = await hashPassword('correct horse battery');
  assert.match(hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.notEqual(await hashPassword('correct horse battery'), hash, 'each hash has its own salt');
  assert.equal(await verifyPassword('correct horse battery', hash), true);
  assert.equal(await verifyPassword('correct horse batterY', hash), false);
  assert.equal(await verifyPassword('', hash), false);
});

test('a hash carries its own parameters, so older (cheaper) hashes still verify', async () => {
  const hash = await hashPassword('a long passphrase');
  const [, , , , salt] = hash.split('$');
  const { scryptSync } = await import('node:crypto');
  const cheap = scryptSync('a long passphrase', Buffer.from(salt, 'base64url'), 32, { N: 1024, r: 8, p: 1 });
  assert.equal(await verifyPassword('a long passphrase', `scrypt$1024$8$1$${salt}$${cheap.toString('base64url')}`), true);
});

test('a malformed stored value never matches', async () => {
  for (const stored of ['', 'plain', 'bcrypt$x$y', 'scrypt$32768$8$1$c2FsdA']) {
    assert.equal(await verifyPassword('anything at all', stored), false, stored);
  }
});

test('passwords shorter than the minimum are refused by name', () => {
  assert.throws(() => checkPasswordRules('x'.repeat(MIN_PASSWORD_LENGTH - 1)), (err: unknown) =>
    err instanceof DomainError && err.code === 'validation_error' && err.options.param === 'password');
  checkPasswordRules('x'.repeat(MIN_PASSWORD_LENGTH));
});
