import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSseParser, type SseMessage } from './sse.js';

test('a message carries its event name (message when it has none), and the name does not leak into the next', () => {
  const got: SseMessage[] = [];
  const parser = createSseParser((m) => got.push(m));
  parser.push('retry: 1000\nid: c1\n: connected\n\ndata: {"id":"evt_1"}\n\n');
  parser.push('event: stream_ended\ndata: {"reason":"revoked"}\n\ndata: after\n\n');
  assert.deepEqual(got, [
    { event: 'message', data: '{"id":"evt_1"}', lastEventId: 'c1' },
    { event: 'stream_ended', data: '{"reason":"revoked"}', lastEventId: 'c1' },
    { event: 'message', data: 'after', lastEventId: 'c1' },
  ]);
});
