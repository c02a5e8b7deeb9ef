import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DECLINE_REASON_TEXT, DECLINE_REASONS, isDeclineReason } from './decline-reasons.js';

// docs/decline-reasons.md prints the enumeration as it is: a reason added or reworded here must be there too.
const docs = readFileSync(new URL('../../../docs/decline-reasons.md', import.meta.url), 'utf8');

test('docs/decline-reasons.md lists every decline reason with its meaning, and no other', () => {
  const listed = [...docs.matchAll(/^\| `([a-z_]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
  assert.deepEqual(listed, DECLINE_REASONS.map((r) => [r, DECLINE_REASON_TEXT[r]]));
});

test('isDeclineReason admits the reasons only', () => {
  for (const r of DECLINE_REASONS) assert.ok(isDeclineReason(r));
  for (const v of ['', 'hard_decline', 'toString', null, undefined, 3]) assert.equal(isDeclineReason(v), false, String(v));
});
