import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createSecretBox } from './secret-box.js';

const secret = 'whsec_abcDEF0123456789abcDEF0123456789';

test('with a key the secret is stored encrypted and authenticated', () => {
  const box = createSecretBox(randomBytes(32));
  const stored = box.seal(secret);
  assert.ok(!stored.includes(secret));
  assert.match(stored, /^aes256gcm:/);
  assert.notEqual(box.seal(secret), stored, 'a fresh IV each time');
  assert.equal(box.open(stored), secret);
  const tampered = stored.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
  assert.throws(() => box.open(tampered));
  assert.throws(() => createSecretBox(randomBytes(32)).open(stored), 'another key cannot open it');
});

test('without a key it is stored as it is; setting a key later keeps those rows readable', () => {
  const stored = createSecretBox(undefined).seal(secret);
  assert.equal(stored, `plain:${secret}`);
  assert.equal(createSecretBox(randomBytes(32)).open(stored), secret);
  assert.throws(() => createSecretBox(undefined).open(createSecretBox(randomBytes(32)).seal(secret)), /WEBHOOK_SECRET_KEY/);
});
