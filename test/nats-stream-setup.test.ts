// The stream as configuration wants it (services/platform/bus/stream-setup.ts), against the
// shared single NATS server: made when missing, its subject added, a replica count the server
// cannot give reported by name and the stream used as it is; and the consumed sequence that
// decides what a lost stream's outboxes publish again.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { StorageType, connect, type ConsumerInfo, type JetStreamManager, type NatsConnection } from 'nats';
import pino from 'pino';
import { consumedSeq, ensureStream } from '../services/platform/bus/stream-setup.js';
import { jetStreamForFile } from './helpers/nats-server.js';

const { url, skip } = await jetStreamForFile();
let nc: NatsConnection;
let jsm: JetStreamManager;
const stream = `SETUP_${randomBytes(4).toString('hex')}`;
const logs: Array<{ level: number; msg: string }> = [];
const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });

before(async () => {
  if (skip) return;
  nc = await connect({ servers: url });
  jsm = await nc.jetstreamManager();
});
after(async () => {
  await jsm?.streams.delete(stream).catch(() => undefined);
  await nc?.close();
});

test('a missing stream is made with the configured replicas; an existing one gets the subject', { skip }, async () => {
  const made = await ensureStream(jsm, { name: stream, subject: 'setup.a.>', replicas: 1 }, logger);
  assert.equal(made.config.num_replicas, 1);
  assert.equal(made.config.storage, StorageType.File);
  const again = await ensureStream(jsm, { name: stream, subject: 'setup.b.>', replicas: 1 }, logger);
  assert.deepEqual(again.config.subjects, ['setup.a.>', 'setup.b.>']);
  assert.equal(again.created, made.created, 'the same stream');
});

test('three replicas asked of a single server: an error naming both numbers, and the stream as it is', { skip }, async () => {
  logs.length = 0;
  const info = await ensureStream(jsm, { name: stream, subject: 'setup.a.>', replicas: 3 }, logger);
  assert.equal(info.config.num_replicas, 1);
  const error = logs.find((l) => l.level === 50);
  assert.match(error?.msg ?? '', new RegExp(`NATS stream ${stream} has 1 replica\\(s\\) and NATS_STREAM_REPLICAS asks 3`));
});

test('a store the server could not create in that instant (its account directory just removed) is created on a later try', { skip }, async () => {
  const raced = `${stream}_RACE`;
  let refusals = 0;
  // The server's answer when the stream's store directory vanished under it (NATS 2.9), once.
  const flaky = { ...jsm, streams: Object.assign(Object.create(jsm.streams), {
    add: (config: Parameters<JetStreamManager['streams']['add']>[0]) => {
      if (refusals++ === 0) return Promise.reject(new Error('error creating store for stream: mkdir /data/jetstream/$G/streams: no such file or directory'));
      return jsm.streams.add(config);
    },
  }) } as JetStreamManager;
  try {
    const made = await ensureStream(flaky, { name: raced, subject: 'setup.race.>' }, logger);
    assert.equal(made.config.name, raced);
    assert.equal(refusals, 2, 'refused once, made on the second try');
  } finally {
    await jsm.streams.delete(raced).catch(() => undefined);
  }
});

test('consumed sequence: the lowest ack floor of the consumers still holding messages; caught-up ones count to the last', () => {
  const consumer = (pending: number, ackPending: number, floor: number) =>
    ({ num_pending: pending, num_ack_pending: ackPending, ack_floor: { stream_seq: floor } }) as unknown as ConsumerInfo;
  assert.equal(consumedSeq(100, []), 100);
  assert.equal(consumedSeq(100, [consumer(0, 0, 40), consumer(0, 0, 99)]), 100, 'caught up, whatever their filters last took');
  assert.equal(consumedSeq(100, [consumer(0, 0, 40), consumer(5, 0, 70), consumer(0, 2, 60)]), 60);
});
