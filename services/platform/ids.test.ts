import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId, newSecret, sha256Hex } from './ids.js';

test('ids carry their prefix and sort by creation time', () => {
  const a = newId('pay', new Date('2026-01-01T00:00:00.000Z'));
  const b = newId('pay', new Date('2026-01-01T00:00:00.001Z'));
  const c = newId('pay', new Date('2030-06-01T00:00:00.000Z'));
  assert.match(a, /^pay_[0-9a-z]{26}$/);
  assert.ok(a < b && b < c, `${a} < ${b} < ${c}`);
});

test('ids made in the same millisecond still differ', () => {
  const at = new Date();
  const ids = new Set(Array.from({ length: 1000 }, () => newId('evt', at)));
  assert.equal(ids.size, 1000);
});

test('secrets are prefixed base62 of the requested length', () => {
  const s = newSecret('svc_sk_test_');
  assert.match(s, /^svc_sk_test_[0-9A-Za-z]{32}$/);
  assert.notEqual(newSecret('x_'), newSecret('x_'));
});

test('sha256Hex is the hex SHA-256 digest', () => {
  assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});
