import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVENT_TYPES } from '../services/contract/enums.js';
import { OPERATIONS } from '../services/contract/operations.js';
import { FLOWS, trigger, triggerProblem } from './trigger.js';
import type { ManagementClient } from './client.js';

// Every type of the catalogue has a flow, and each flow calls only operations the contract has, with
// the test key checked first. (test/listen.test.ts runs every flow against a whole deployment.)

/** The contract's operation a call is, or undefined. */
function operationOf(method: string, path: string) {
  return OPERATIONS.find((o) => o.method === method &&
    new RegExp(`^${o.path.replace(/^\/v1/, '').replace(/:\w+/g, '[^/]+')}$`).test(path.split('?')[0]));
}

function recordingApi(calls: string[]): ManagementClient {
  let n = 0;
  return {
    async request(method: string, path: string, body?: any) {
      const op = operationOf(method, path);
      assert.ok(op, `${method} ${path} is an operation of the contract`);
      calls.push(op.id);
      if (op.id === 'getMe') return { mode: 'test' };
      // A list (svc trigger dispute.* waits for the sandbox's dispute) finds one object.
      if (op.id.startsWith('list')) return { data: [{ id: `obj_${++n}`, object: op.tag.toLowerCase().replace(/s$/, ''), status: 'created' }] };
      return { id: `obj_${++n}`, object: op.tag.toLowerCase().replace(/s$/, ''), status: 'created', ...body };
    },
  } as unknown as ManagementClient;
}

test('svc trigger has a flow for every event type of the catalogue, each made of contract operations', async () => {
  assert.deepEqual(Object.keys(FLOWS).sort(), [...EVENT_TYPES].sort());
  for (const type of EVENT_TYPES) {
    assert.equal(triggerProblem(type), undefined, type);
    const calls: string[] = [];
    const result = await trigger(recordingApi(calls), type);
    assert.equal(calls[0], 'getMe', `${type}: the key's mode is checked first`);
    assert.ok(calls.length > 1, `${type}: the flow makes a call`);
    assert.ok(result.objects.length > 0, `${type}: the flow reports what it made`);
  }
  assert.match(triggerProblem('payout.canceled') ?? '', /not an event type/);
});

test('svc trigger payout.cancelled creates a payout and cancels that same payout', async () => {
  const calls: string[] = [];
  const result = await trigger(recordingApi(calls), 'payout.cancelled');
  assert.deepEqual(calls, ['getMe', 'createPayment', 'createPayout', 'cancelPayout']);
  assert.equal(result.objects.length, 2);
});
