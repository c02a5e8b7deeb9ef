import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainError } from '../../services/contract/index.js';
import { canonicalJson } from '../../services/platform/idempotency-bindings.js';
import { idempotencyKeyOf, requestHash } from './idempotency.js';

test('canonical JSON sorts keys at every depth and keeps array order', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  assert.equal(canonicalJson([2, 1]), '[2,1]');
  assert.equal(canonicalJson({ a: undefined, b: 'x' }), '{"b":"x"}', 'undefined fields vanish as in JSON');
  assert.equal(canonicalJson(undefined), 'null');
  assert.equal(canonicalJson('é"'), JSON.stringify('é"'));
});

test('the request hash ignores key order and whitespace, not method, path or values', () => {
  const a = JSON.parse('{"amount":1000,"currency":"EUR","customer":{"email":"a@b.c","name":"Ada"}}');
  const b = JSON.parse('{ "customer" : { "name" : "Ada", "email" : "a@b.c" },\n  "currency":"EUR", "amount": 1000 }');
  const hash = requestHash('POST', '/v1/payments', a);
  assert.match(hash, /^[0-9a-f]{64}$/);
  assert.equal(requestHash('post', '/v1/payments', b), hash);
  assert.notEqual(requestHash('POST', '/v1/payments', { ...a, amount: 1001 }), hash);
  assert.notEqual(requestHash('POST', '/v1/payouts', a), hash);
  assert.notEqual(requestHash('PUT', '/v1/payments', a), hash);
  assert.notEqual(requestHash('POST', '/v1/payments', { ...a, currency: 'eur' }), hash, 'values compare exactly');
  // Array order is meaning, not formatting.
  assert.notEqual(requestHash('POST', '/p', { l: [1, 2] }), requestHash('POST', '/p', { l: [2, 1] }));
  // A string "1000" is not the number 1000.
  assert.notEqual(requestHash('POST', '/p', { amount: '1000' }), requestHash('POST', '/p', { amount: 1000 }));
});

test('a key is 1 to 255 characters; absent is no key', () => {
  assert.equal(idempotencyKeyOf(undefined), undefined);
  assert.equal(idempotencyKeyOf('order-1'), 'order-1');
  assert.equal(idempotencyKeyOf('k'.repeat(255)), 'k'.repeat(255));
  for (const bad of ['', 'k'.repeat(256)]) {
    assert.throws(() => idempotencyKeyOf(bad), (err: unknown) => {
      assert.ok(err instanceof DomainError);
      assert.equal(err.code, 'validation_error');
      assert.equal(err.status, 422);
      assert.equal(err.options.param, 'Idempotency-Key');
      return true;
    });
  }
});
