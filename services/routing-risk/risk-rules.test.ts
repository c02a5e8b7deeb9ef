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

test('velocity: 5 earlier payments of one customer in the window add 30, 20 add 50', () => {
  const base = input({});
  assert.deepEqual(assessRisk(base, { customer: 4, fingerprint: 0, ip: 0 }).reasons, []);
  assert.deepEqual(assessRisk(base, { customer: 5, fingerprint: 0, ip: 0 }), {
    score: 30, outcome: 'allow', reasons: ['customer_velocity'],
  });
  assert.deepEqual(assessRisk(base, { customer: 20, fingerprint: 0, ip: 0 }), {
    score: 50, outcome: 'allow', reasons: ['customer_velocity_high'],
  });
});

test('velocity: a device counts once, by its stronger signal; an IP needs twice the payments', () => {
  const base = input({});
  assert.deepEqual(assessRisk(base, { customer: 0, fingerprint: 5, ip: 5 }).reasons, ['device_velocity']);
  assert.deepEqual(assessRisk(base, { customer: 0, fingerprint: 0, ip: 9 }).reasons, []);
  assert.deepEqual(assessRisk(base, { customer: 0, fingerprint: 0, ip: 10 }).reasons, ['ip_velocity']);
  const both = assessRisk(base, { customer: 0, fingerprint: 5, ip: 40 });
  assert.equal(both.score, 50);
  assert.deepEqual(both.reasons, ['ip_velocity_high']);
});

test('velocity: a busy customer on a busy device is blocked; with a large amount sooner', () => {
  const burst = assessRisk(input({}), { customer: 20, fingerprint: 20, ip: 0 });
  assert.equal(burst.score, 100);
  assert.equal(burst.outcome, 'block');
  assert.deepEqual(burst.reasons, ['customer_velocity_high', 'device_velocity_high']);
  const r = assessRisk(input({ amount: 2_000_000n, country: 'DE', customerCountry: 'FR' }), { customer: 5, fingerprint: 0, ip: 0 });
  assert.equal(r.score, 80);
  assert.equal(r.outcome, 'block');
  assert.deepEqual(r.reasons, ['amount_above_10000', 'country_mismatch', 'customer_velocity']);
});
