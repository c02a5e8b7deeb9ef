import assert from 'node:assert/strict';
import { test } from 'node:test';
import { breakdown, type Profile } from './cpu-breakdown.js';

// A profile tree: root → a project function → pg's submit → writev (native), and beside it a
// regex (native) under the project function, V8's collector, and idle time.
const profile: Profile = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2, 5, 6] },
    { id: 2, callFrame: { functionName: 'commit', url: 'file:///app/dist/services/payments/commit.js' }, children: [3, 7] },
    { id: 3, callFrame: { functionName: 'submit', url: 'file:///app/node_modules/pg/lib/query.js' }, children: [4] },
    { id: 4, callFrame: { functionName: 'writev', url: '' } },
    { id: 5, callFrame: { functionName: '(garbage collector)', url: '' } },
    { id: 6, callFrame: { functionName: '(idle)', url: '' } },
    { id: 7, callFrame: { functionName: 'exec', url: '' } },
  ],
  samples: [4, 4, 3, 2, 7, 5, 6, 6, 6],
};

test('charges each busy sample to the project, a package, the runtime or the socket writes', () => {
  const { busy, share } = breakdown(profile);
  assert.equal(busy, 6, 'idle samples are not busy');
  assert.equal(share['socket writes'], 2 / 6, 'writev is the kernel\'s, whoever called it');
  assert.equal(share.packages, 1 / 6);
  assert.equal(share.ours, 2 / 6, 'a native regex is charged to the project function that ran it');
  assert.equal(share.runtime, 1 / 6);
});
