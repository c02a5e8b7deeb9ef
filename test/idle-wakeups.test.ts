import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startAllInOne, type AllInOneProcess } from './helpers/all-in-one-process.js';
import { wakeups } from './helpers/wakeups.js';

// An idle `npm start` process sleeps: each wake-up of its event loop costs CPU (on a laptop's
// battery; on a shared host, cold caches for whoever runs next). It used to be woken 134 times a
// second, 100 of them by the event-loop lag metrics' 10 ms sampling timer; now about 40, by its
// relays' polls, its listeners' heartbeats and the answers to them. The bound leaves room for a
// busy machine.

const MAX_PER_SECOND = 75;
const SETTLE_MS = 2_000;
const WINDOW_MS = 4_000;

let aio: AllInOneProcess;

before(async () => {
  aio = await startAllInOne(process.env.NATS_URL);
});
after(() => aio?.close());

test('an idle all-in-one process is woken fewer than 75 times a second', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const pid = aio.process.child.pid!;
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const first = await wakeups(pid);
  await new Promise((r) => setTimeout(r, WINDOW_MS));
  const perSecond = ((await wakeups(pid)) - first) / (WINDOW_MS / 1000);
  assert.ok(first > 0, 'the process\'s wake-ups can be read');
  assert.ok(perSecond < MAX_PER_SECOND, `woken ${perSecond.toFixed(0)} times a second while idle`);
});
