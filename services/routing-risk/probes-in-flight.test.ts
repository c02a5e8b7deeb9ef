import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import { probesInFlight } from './probes-in-flight.js';

const scope = { merchantId: 'mer_1', projectId: 'prj_1', mode: 'test' } as Scope;
const failedAgo = (seconds: number) => [{ ageSeconds: seconds, technical: true }];

test('a probe stays in flight until its account shows a newer attempt, or for two seconds at most', () => {
  const probes = probesInFlight();
  const now = 1_000_000;
  probes.record(scope, 'card', 'USD', 'pac_a', now);
  // 0.5 s later the newest attempt read is from before the probe (3 s old): still in flight.
  assert.deepEqual([...probes.pending(scope, 'card', 'USD', new Map([['pac_a', failedAgo(3)]]), now + 500)], ['pac_a']);
  // Another segment, another scope: not this probe's.
  assert.equal(probes.pending(scope, 'card', 'EUR', new Map([['pac_a', failedAgo(3)]]), now + 500).size, 0);
  assert.equal(probes.pending({ ...scope, projectId: 'prj_2' } as Scope, 'card', 'USD', new Map([['pac_a', failedAgo(3)]]), now + 500).size, 0);
  // Its outcome arrives (an attempt 0.2 s old at 0.6 s): the probe is over, whatever it answered.
  assert.equal(probes.pending(scope, 'card', 'USD', new Map([['pac_a', failedAgo(0.2)]]), now + 600).size, 0);
  assert.equal(probes.pending(scope, 'card', 'USD', new Map([['pac_a', failedAgo(3)]]), now + 700).size, 0, 'forgotten');
  // An outcome that never comes: forgotten after two seconds.
  probes.record(scope, 'card', 'USD', 'pac_a', now);
  assert.equal(probes.pending(scope, 'card', 'USD', new Map([['pac_a', failedAgo(10)]]), now + 2_001).size, 0);
});
