import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_EVENT_BYTES } from '../../contract/limits.js';
import { brokerFindings, HEADER_ROOM_BYTES } from './broker-checks.js';

const facts = (over: Partial<Parameters<typeof brokerFindings>[0]> = {}) => ({
  serverVersion: '2.10.22', maxPayload: 1024 * 1024, stream: 'SVC_EVENTS', streamReplicas: 3, streamMaxMsgSize: -1, ...over,
});

test('a server whose max_payload cannot carry the largest event is refused, naming both sizes', () => {
  const { refusal } = brokerFindings(facts({ maxPayload: 65_536 }));
  assert.match(refusal!, /max_payload \(65536 bytes\) is below 132096 bytes/);
  assert.equal(brokerFindings(facts({ maxPayload: MAX_EVENT_BYTES + HEADER_ROOM_BYTES })).refusal, undefined);
  assert.match(brokerFindings(facts({ streamMaxMsgSize: 1000 })).refusal!, /stream SVC_EVENTS's max_msg_size \(1000 bytes\)/);
});

test('durability warnings: 2.9 lacks sync_interval; fewer than 3 replicas depend on a setting a client cannot read', () => {
  assert.deepEqual(brokerFindings(facts()).warnings, []);
  const old = brokerFindings(facts({ serverVersion: '2.9.10', streamReplicas: 3 })).warnings;
  assert.equal(old.length, 1);
  assert.match(old[0], /NATS 2\.9\.10 has no sync_interval \(it exists from 2\.10\)/);
  const single = brokerFindings(facts({ streamReplicas: 1 })).warnings;
  assert.equal(single.length, 1);
  assert.match(single[0], /1 replica\(s\).*sync_interval: always.*NATS 2\.10\+.*cannot read/);
  assert.equal(brokerFindings(facts({ serverVersion: '2.9.10', streamReplicas: 1 })).warnings.length, 2);
});
