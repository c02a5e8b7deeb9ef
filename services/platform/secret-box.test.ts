import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createSecretBox, rememberingOpened, SecretKeyMissingError } from './secret-box.js';

const secret = 'whsec_abcDEF0123456789abcDEF0123456789';
const webhooks = { variable: 'WEBHOOK_SECRET_KEY', allowPlain: true };
const providers = { variable: 'PROVIDER_SECRET_KEY', allowPlain: false };

test('with a key the secret is stored encrypted and authenticated', () => {
  const box = createSecretBox(randomBytes(32), webhooks);
  const stored = box.seal(secret);
  assert.ok(!stored.includes(secret));
  assert.match(stored, /^aes256gcm:/);
  assert.notEqual(box.seal(secret), stored, 'a fresh IV each time');
  assert.equal(box.open(stored), secret);
  const tampered = stored.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
  assert.throws(() => box.open(tampered));
  assert.throws(() => createSecretBox(randomBytes(32), webhooks).open(stored), 'another key cannot open it');
});

test('without a key it is stored as it is where allowed; setting a key later keeps those rows readable', () => {
  const stored = createSecretBox(undefined, webhooks).seal(secret);
  assert.equal(stored, `plain:${secret}`);
  assert.equal(createSecretBox(randomBytes(32), webhooks).open(stored), secret);
  assert.throws(
    () => createSecretBox(undefined, webhooks).open(createSecretBox(randomBytes(32), webhooks).seal(secret)),
    /WEBHOOK_SECRET_KEY/,
  );
});

test('where plain storage is not allowed, sealing without a key is refused naming the variable', () => {
  assert.throws(() => createSecretBox(undefined, providers).seal(secret), (err: unknown) =>
    err instanceof SecretKeyMissingError && err.variable === 'PROVIDER_SECRET_KEY' && /PROVIDER_SECRET_KEY/.test(err.message));
  assert.throws(() => createSecretBox(randomBytes(32), providers).open(`plain:${secret}`), /PROVIDER_SECRET_KEY/);
});

test('rememberingOpened opens each sealed value once, a rotated one afresh, and keeps no refusal', () => {
  const box = createSecretBox(randomBytes(32), webhooks);
  let opens = 0;
  const counted = { ...box, open: (stored: string) => (opens++, box.open(stored)) };
  const remembering = rememberingOpened(counted, 2);
  const first = box.seal(secret);
  assert.equal(remembering.open(first), secret);
  assert.equal(remembering.open(first), secret);
  assert.equal(opens, 1, 'opened once');
  const rotated = box.seal('whsec_rotated');
  assert.equal(remembering.open(rotated), 'whsec_rotated');
  assert.equal(opens, 2, 'a new sealed value is opened');
  const tampered = first.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
  assert.throws(() => remembering.open(tampered));
  assert.throws(() => remembering.open(tampered), 'still refused: nothing was kept');
  remembering.open(box.seal('whsec_third'));
  assert.equal(remembering.open(first), secret, 'past the cap it starts over and opens again');
  assert.equal(opens, 6);
});

test('during a key rotation `other` is opened too, never sealed with; current() tells what is still to re-seal', () => {
  const [older, newer] = [randomBytes(32), randomBytes(32)];
  const underOlder = createSecretBox(older, providers).seal(secret);
  // Before the switch: the key in use, and the coming one readable already.
  const before = createSecretBox(older, { ...providers, other: newer });
  const underNewer = createSecretBox(newer, providers).seal(secret);
  assert.equal(before.open(underNewer), secret, 'a value another replica sealed under the coming key opens');
  // After it: the new key seals; the retired one still opens what is not re-sealed yet.
  const after = createSecretBox(newer, { ...providers, other: older });
  assert.equal(after.open(underOlder), secret);
  assert.equal(after.current(underOlder), false, 'to re-seal');
  const resealed = after.seal(after.open(underOlder));
  assert.equal(after.current(resealed), true);
  assert.equal(createSecretBox(newer, providers).open(resealed), secret, 'the new key alone opens it');
  assert.throws(() => createSecretBox(older, providers).open(resealed));
  assert.equal(after.current(`plain:${secret}`), false);
  assert.throws(() => createSecretBox(newer, { ...providers, other: randomBytes(32) }).open(underOlder), 'a third key opens nothing');
});
