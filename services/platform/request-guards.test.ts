import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { ScopeSchema } from '../../proto/gen/svc/common/v1/common_pb.js';
import { fromConnectError } from '../contract/errors.js';
import { pageLimit, refuseScenarioInLive, requireScope } from './request-guards.js';

// What a caller gets back, as the gateway reads it.
function refusal(fn: () => unknown): [string, string | undefined] {
  try {
    fn();
  } catch (err) {
    const e = fromConnectError(err);
    return [e.code, e.options.param];
  }
  assert.fail('expected a refusal');
}

test('a scope needs merchant, project and a test or live mode', () => {
  const scope = create(ScopeSchema, { merchantId: 'mer_1', projectId: 'prj_1', mode: 'live' });
  assert.equal(requireScope(scope), scope);
  for (const bad of [undefined, { ...scope, merchantId: '' }, { ...scope, projectId: '' }, { ...scope, mode: 'prod' }]) {
    assert.deepEqual(refusal(() => requireScope(bad)), ['validation_error', 'scope']);
  }
});

test('a page holds 1 to 200 items, and 50 when the limit is 0 (unset in proto3)', () => {
  assert.equal(pageLimit(1), 1);
  assert.equal(pageLimit(200), 200);
  assert.equal(pageLimit(0), 50);
  for (const limit of [-1, 201]) assert.deepEqual(refusal(() => pageLimit(limit)), ['validation_error', 'limit']);
});

test('a live key may not name a test scenario; a test key may, and no scenario is always fine', () => {
  refuseScenarioInLive('test', 'decline');
  refuseScenarioInLive('live', undefined);
  assert.deepEqual(refusal(() => refuseScenarioInLive('live', 'decline')), ['test_scenario_not_allowed', 'test_scenario']);
});
