import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { refuseWithoutCsrfToken } from './csrf.js';
import { refuseForeignOrigin } from './guards.js';
import { csrfTokenOf, newToken } from './tokens.js';

const req = (method: string, headers: Record<string, string>) => ({ method, headers }) as unknown as FastifyRequest;
const isCsrf = (err: unknown) => err instanceof DomainError && err.code === 'invalid_csrf_token' && err.status === 403;

test('a state-changing call needs its session\'s CSRF token; reading does not', () => {
  const session = newToken();
  refuseWithoutCsrfToken(req('GET', {}), session);
  refuseWithoutCsrfToken(req('POST', { 'x-csrf-token': csrfTokenOf(session) }), session);
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
    assert.throws(() => refuseWithoutCsrfToken(req(method, {}), session), isCsrf, method);
    assert.throws(() => refuseWithoutCsrfToken(req(method, { 'x-csrf-token': csrfTokenOf(newToken()) }), session), isCsrf);
  }
});

test('a POST whose Origin is another site is refused; ours, PUBLIC_BASE_URL\'s or none passes', () => {
  refuseForeignOrigin(req('POST', { host: 'pay.example:8080', origin: 'http://pay.example:8080' }), undefined);
  refuseForeignOrigin(req('POST', { host: 'internal:8080', origin: 'https://pay.example' }), 'https://pay.example');
  refuseForeignOrigin(req('POST', { host: 'pay.example' }), undefined);
  refuseForeignOrigin(req('GET', { host: 'pay.example', origin: 'https://evil.example' }), undefined);
  assert.throws(() => refuseForeignOrigin(req('POST', { host: 'pay.example', origin: 'https://evil.example' }), undefined), isCsrf);
  assert.throws(() => refuseForeignOrigin(req('POST', { host: 'pay.example', origin: 'null' }), undefined), isCsrf);
});
