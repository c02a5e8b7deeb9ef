import assert from 'node:assert/strict';
import { createServer, get, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { writeChunk } from './event-stream.js';

// A stream shutdown ended (preClose) while its pump was between two chunks of a page: the next
// write must be a no-op, not an ERR_STREAM_WRITE_AFTER_END 'error' that takes the gateway down.
test('a chunk written after the stream ended is dropped: no error event, no uncaught exception', async () => {
  const crashes: unknown[] = [];
  const onUncaught = (err: unknown) => crashes.push(err);
  process.on('uncaughtException', onUncaught);
  const received: string[] = [];
  const server = createServer(async (_req, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    await writeChunk(res, 'data: first\n\n');
    res.end();
    await writeChunk(res, 'data: after the end\n\n');
  });
  try {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve, reject) => {
      get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, (res) => {
        res.setEncoding('utf8').on('data', (c: string) => received.push(c)).on('end', resolve);
      }).on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(crashes, []);
    assert.equal(received.join(''), 'data: first\n\n');
  } finally {
    process.off('uncaughtException', onUncaught);
    server.close();
  }
});
