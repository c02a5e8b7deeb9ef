import assert from 'node:assert/strict';
import { test } from 'node:test';
import { armOf, variantProblem } from './ab-arms.js';
import { stickyShare } from '../platform/sticky-share.js';

const variant = (share: number) => ({ share, strategy: { type: 'cheapest' as const } });

test('a payment\'s arm is sticky, and the variant\'s realised share is near its share over many ids', () => {
  for (const share of [0.01, 0.1, 0.5]) {
    const n = 100_000;
    let inVariant = 0;
    for (let i = 0; i < n; i++) if (armOf(variant(share), `pay_${i.toString(36)}x`) === 'variant') inVariant++;
    // Four standard deviations of a binomial share: a hash that is not uniform would miss it.
    const tolerance = 4 * Math.sqrt((share * (1 - share)) / n);
    assert.ok(Math.abs(inVariant / n - share) < tolerance, `share ${share}: realised ${inVariant / n}`);
  }
  for (const id of ['pay_a', 'pay_b', 'pay_c']) assert.equal(armOf(variant(0.3), id), armOf(variant(0.3), id));
  assert.equal(armOf(null, 'pay_a'), 'control');
  assert.equal(armOf(undefined, 'pay_a'), 'control');
});

test('the arm draw is independent of the exploration draw', () => {
  // Of payments in a 20 % variant, the share that also explores (4 %) is about 4 %, not 0 or 100.
  const n = 50_000;
  let inVariant = 0;
  let both = 0;
  for (let i = 0; i < n; i++) {
    const id = `pay_${i}`;
    if (armOf(variant(0.2), id) !== 'variant') continue;
    inVariant++;
    if (stickyShare(id, 'explore') < 0.04) both++;
  }
  const rate = both / inVariant;
  assert.ok(Math.abs(rate - 0.04) < 4 * Math.sqrt((0.04 * 0.96) / inVariant), `explored within the variant: ${rate}`);
});

test('a variant is refused with the field it gets wrong', () => {
  const providers = ['demo_alpha', 'demo_beta'];
  const cases: Array<[unknown, string]> = [
    ['half', 'variant'],
    [{ share: 0.005, strategy: { type: 'cheapest' } }, 'variant.share'],
    [{ share: 0.6, strategy: { type: 'cheapest' } }, 'variant.share'],
    [{ share: '0.1', strategy: { type: 'cheapest' } }, 'variant.share'],
    [{ share: 0.1 }, 'variant.strategy'],
    [{ share: 0.1, strategy: { type: 'bandit' } }, 'variant.strategy.type'],
    [{ share: 0.1, strategy: { type: 'volume_split', weights: { demo_alpha: 60 } } }, 'variant.strategy.weights'],
    [{ share: 0.1, strategy: { type: 'success_rate', settings: { minSample: 0 } } }, 'variant.strategy.settings.minSample'],
    [{ share: 0.1, strategy: { type: 'cheapest' }, colour: 'red' }, 'variant.colour'],
  ];
  for (const [v, param] of cases) assert.equal(variantProblem(v, providers)?.[0], param, JSON.stringify(v));
  assert.equal(variantProblem({ share: 0.01, strategy: { type: 'success_rate' } }, providers), undefined);
  assert.equal(variantProblem({ share: 0.5, strategy: { type: 'volume_split', weights: { demo_alpha: 100 } } }, providers), undefined);
  assert.match(variantProblem({ share: 0.1, strategy: { type: 'bandit' } }, providers)![1], /^variant\.strategy\.type must be one of/);
});
