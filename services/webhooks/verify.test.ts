import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { signatureHeader } from '../contract/webhook-delivery.js';
import { truncateSignature } from './signature.js';
import { verifyWebhookSignature } from './verify.js';

const secret = 'whsec_0123456789abcdefABCDEF0123456789';
const body = '{"id":"evt_1","type":"payment.successful","mode":"test","created_at":"2030-01-01T00:00:00.000Z","data":{"object":{"amount":1000}}}';
const at = new Date('2030-01-01T00:00:00.000Z');

test('the header is t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
  const header = signatureHeader(secret, body, at);
  const t = at.getTime() / 1000;
  assert.equal(header, `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`);
});

test('a genuine signature verifies within 300 s either way, and not beyond', () => {
  const header = signatureHeader(secret, body, at);
  for (const offset of [0, 299, -299, 300, -300]) {
    assert.equal(verifyWebhookSignature(body, header, secret, { now: new Date(at.getTime() + offset * 1000) }), true, `${offset}`);
  }
  for (const offset of [301, -301, 3600]) {
    assert.equal(verifyWebhookSignature(body, header, secret, { now: new Date(at.getTime() + offset * 1000) }), false, `${offset}`);
  }
  assert.equal(verifyWebhookSignature(Buffer.from(body), header, secret, { now: at }), true, 'raw bytes work too');
});

test('anything altered fails: body, secret, timestamp, signature, header shape', () => {
  const header = signatureHeader(secret, body, at);
  const now = { now: at };
  assert.equal(verifyWebhookSignature(`${body} `, header, secret, now), false);
  assert.equal(verifyWebhookSignature(body, header, `${secret}x`, now), false);
  assert.equal(verifyWebhookSignature(body, header.replace(/t=(\d+)/, (_m, t) => `t=${Number(t) + 1}`), secret, now), false);
  assert.equal(verifyWebhookSignature(body, header.replace(/.$/, (c) => (c === '0' ? '1' : '0')), secret, now), false);
  for (const bad of [undefined, '', 'v1=abc', `t=${at.getTime() / 1000}`, 't=x,v1=00', ['a', 'b']]) {
    assert.equal(verifyWebhookSignature(body, bad as string, secret, now), false, String(bad));
  }
});

test('with several v1 values any matching one is accepted', () => {
  const header = signatureHeader(secret, body, at);
  const t = header.slice(0, header.indexOf(','));
  const v1 = header.slice(header.indexOf(',') + 1);
  assert.equal(verifyWebhookSignature(body, `${t},v1=${'0'.repeat(64)},${v1}`, secret, { now: at }), true);
});

test('history keeps only the first 8 hex characters of the signature', () => {
  const header = signatureHeader(secret, body, at);
  const kept = truncateSignature(header);
  assert.match(kept, /^t=\d+,v1=[0-9a-f]{8}…$/);
  assert.ok(header.startsWith(kept.slice(0, -1)));
});
