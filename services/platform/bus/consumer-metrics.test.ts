import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Metrics } from '../metrics.js';
import { measuredBus } from './consumer-metrics.js';
import { MemoryBus } from './memory-bus.js';

test('a measured consumer reports its pending messages on scrape and times each handler run by outcome', async () => {
  const metrics = new Metrics({ defaults: false });
  const inner = new MemoryBus();
  const bus = measuredBus(metrics, inner);
  let calls = 0;
  const sub = await bus.consume('ledger', ['svc.events.>'], async () => {
    if (calls++ === 0) throw new Error('not ready');
  });
  await bus.publish({ subject: 'svc.events.payment.created', msgId: 'a', data: Buffer.from('{"id":"a"}') });
  const deadline = Date.now() + 5000;
  while (calls < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await sub.stop();
  const text = await metrics.text();
  assert.match(text, /^svc_consumer_pending\{consumer="ledger"\} 0$/m);
  assert.match(text, /^svc_consumer_processing_seconds_count\{consumer="ledger",outcome="error"\} 1$/m);
  assert.match(text, /^svc_consumer_processing_seconds_count\{consumer="ledger",outcome="ok"\} 1$/m);
});
