import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { csrfMatches, csrfTokenOf, isTokenShaped, newToken, tokenHash } from './tokens.js';

test('a session token is 32 random bytes in base64url, and only its SHA-256 is kept', () => {
  const token = newToken();
  assert.equal(Buffer.from(token, 'base64url').length, 32);
  assert.ok(isTokenShaped(token));
  assert.notEqual(newToken(), token);
  assert.equal(tokenHash(token), createHash('sha256').update(token).digest('hex'));
});

test('the CSRF token belongs to its session: it matches that session only, and is not the stored hash', () => {
  const session = newToken();
  const csrf = csrfTokenOf(session);
  assert.equal(csrfMatches(session, csrf), true);
  assert.equal(csrfMatches(newToken(), csrf), false);
  assert.equal(csrfMatches(session, undefined), false);
  assert.equal(csrfMatches(session, ''), false);
  assert.equal(csrfMatches(session, `${csrf}x`), false);
  assert.equal(csrfMatches(session, [csrf]), false, 'a repeated header arrives as an array and is refused');
  assert.notEqual(csrf, Buffer.from(tokenHash(session), 'hex').toString('base64url'));
});

test('only token-shaped values reach the database', () => {
  for (const value of [undefined, '', 'short', 'A'.repeat(44), `${'A'.repeat(42)}=`, 42]) assert.equal(isTokenShaped(value), false);
});
