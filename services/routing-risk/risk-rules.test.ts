import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { RiskInputSchema } from '../../proto/gen/svc/risk/v1/risk_pb.js';
import { BLOCK_THRESHOLD, assessRisk } from './risk-rules.js';

const input = (over: Record<string, unknown>) =>
  create(RiskInputSchema, { paymentId: 'pay_1', amount: 1000n, currency: 'EUR', paymentMethodType: 'card', ...over });

test('an ordinary payment scores 0 and is allowed', () => {
  assert.deepEqual(assessRisk(input({})), { score: 0, outcome: 'allow', reasons: [] });
});

test('amount bands and a country mismatch add up', () => {
  assert.deepEqual(assessRisk(input({ amount: 200_000n })).reasons, ['amount_above_1000']);
  const r = assessRisk(input({ amount: 2_000_000n, country: 'DE', customerCountry: 'FR' }));
  assert.equal(r.score, 50);
  assert.deepEqual(r.reasons, ['amount_above_10000', 'country_mismatch']);
  assert.equal(r.outcome, 'allow');
});

test(`a score at or above ${BLOCK_THRESHOLD} blocks`, () => {
  const r = assessRisk(input({ amount: 20_000_000n, country: 'DE', customerCountry: 'FR' }));
  assert.equal(r.score, 80);
  assert.equal(r.outcome, 'block');
});
