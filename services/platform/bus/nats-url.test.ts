import assert from 'node:assert/strict';
import { test } from 'node:test';
import { natsConnectionOptions } from './nats-url.js';

test('NATS_URL credentials become options and leave the server list', () => {
  assert.deepEqual(natsConnectionOptions('nats://127.0.0.1:4222'), { servers: ['nats://127.0.0.1:4222'] });
  assert.deepEqual(natsConnectionOptions('nats://svc:p%40ss@nats.svc:4222'), { servers: ['nats://nats.svc:4222'], user: 'svc', pass: 'p@ss' });
  assert.deepEqual(natsConnectionOptions('nats://s3cret@nats:4222'), { servers: ['nats://nats:4222'], token: 's3cret' });
  assert.deepEqual(natsConnectionOptions('nats://u:p@a:4222, nats://b:4222'), { servers: ['nats://a:4222', 'nats://b:4222'], user: 'u', pass: 'p' });
  assert.deepEqual(natsConnectionOptions('tls://a:4222'), { servers: ['tls://a:4222'] });
});
