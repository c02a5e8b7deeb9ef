import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProviderAccount } from '../provider-account.js';
import {
  DEFAULT_SETTINGS, outcomeKind, rank, strategyProblem, windowed, type HealthHistory, type MinuteCounts, type RankInput,
  type RecentAttempt, type SegmentHistory, type SegmentLevel,
} from './index.js';

function account(code: string, name: string, feeBps = 0): ProviderAccount {
  return {
    providerId: `prv_${code}`, providerCode: code, providerName: name, providerAccountId: `pac_${code}`, connected: false,
    currencies: [], countries: [], methods: ['card'], feeFixed: 0n, feeBps, latencyMs: 0,
  };
}
const adyen = account('adyen', 'Adyen', 300);
const stripe = account('stripe', 'Stripe', 200);
const NOW = 1_000_000;

const minute = (m: number, c: Partial<MinuteCounts>): MinuteCounts => ({ minute: m, succeeded: 0, soft: 0, hard: 0, technical: 0, ...c });

/** History with the given minutes per account and level. */
function history(entries: Array<[ProviderAccount, SegmentLevel, MinuteCounts[]]>): SegmentHistory {
  const h: SegmentHistory = new Map();
  for (const [a, level, minutes] of entries) {
    const levels = h.get(a.providerAccountId) ?? new Map();
    levels.set(level, minutes);
    h.set(a.providerAccountId, levels);
  }
  return h;
}

/** Newest first, one a second: 't' a technical failure, 'a' an answered attempt. */
const attempts = (pattern: string, firstAge = 0): RecentAttempt[] =>
  [...pattern].map((c, i) => ({ ageSeconds: firstAge + i, technical: c === 't' }));

function input(h: SegmentHistory, paymentId = 'pay_1', candidates = [stripe, adyen], health: HealthHistory = new Map()): RankInput {
  return {
    candidates, amount: 10_000n, paymentId, history: h, health, nowMinute: NOW,
    segment: { method: 'card', currency: 'EUR', country: 'DE', cardNetwork: 'visa' },
  };
}

/** Payment ids that take no exploration or probe draw, and some that do. */
const ids = Array.from({ length: 4000 }, (_, i) => `pay_${i}`);

test('outcomes: hard and policy declines are the card\'s, soft declines and technical failures counted apart', () => {
  assert.equal(outcomeKind('succeeded', null), 'succeeded');
  assert.equal(outcomeKind('authorized', null), 'succeeded');
  assert.equal(outcomeKind('failed', 'hard'), 'hard');
  assert.equal(outcomeKind('failed', 'policy'), 'hard');
  assert.equal(outcomeKind('failed', 'soft'), 'soft');
  assert.equal(outcomeKind('failed', 'technical'), 'technical');
  assert.equal(outcomeKind('failed', null), 'technical');
});

test('the window slides by time and by count, newest minutes first, hard declines not counted toward it', () => {
  const minutes = [minute(NOW, { succeeded: 5, hard: 50 }), minute(NOW - 1, { soft: 5 }), minute(NOW - 2, { technical: 5 }), minute(NOW - 90, { succeeded: 100 })];
  assert.deepEqual(windowed(minutes, 60, 1000, NOW), { succeeded: 5, soft: 5, hard: 50, technical: 5 });
  assert.deepEqual(windowed(minutes, 60, 10, NOW), { succeeded: 5, soft: 5, hard: 50, technical: 0 });
  assert.deepEqual(windowed(minutes, 2, 1000, NOW), { succeeded: 5, soft: 5, hard: 50, technical: 0 });
  assert.equal(windowed(minutes, 120, 1000, NOW).succeeded, 105);
  assert.deepEqual(windowed([minute(NOW + 1, { succeeded: 3 })], 60, 100, NOW).succeeded, 0, 'a future minute is not read');
});

test('priority keeps the rule\'s order, cheapest orders by fee for the amount', () => {
  assert.deepEqual(rank({ type: 'priority' }, input(new Map())).ranked.map((c) => c.account.providerCode), ['stripe', 'adyen']);
  const cheap = rank({ type: 'cheapest' }, input(new Map(), 'p', [adyen, stripe]));
  assert.deepEqual(cheap.ranked.map((c) => c.account.providerCode), ['stripe', 'adyen']);
  assert.deepEqual(cheap.ranked.map((c) => c.score), [200, 300]);
  // Money as money, in the payment's currency (the routing notes beside "€2.00" on a payment's page).
  assert.deepEqual(cheap.ranked.map((c) => c.note), ['fee 2.00 EUR on 100.00 EUR', 'fee 3.00 EUR on 100.00 EUR']);
});

test('volume split: the same payment always starts at the same account, shares follow the weights', () => {
  const weights = { adyen: 70, stripe: 30 };
  const first = (id: string) => rank({ type: 'volume_split', weights }, input(new Map(), id)).ranked[0]!.account.providerCode;
  assert.equal(first('pay_x'), first('pay_x'));
  const adyenShare = ids.filter((id) => first(id) === 'adyen').length / ids.length;
  assert.ok(Math.abs(adyenShare - 0.7) < 0.03, `adyen took ${adyenShare}`);
  const r = rank({ type: 'volume_split', weights }, input(new Map(), 'pay_x'));
  assert.equal(r.ranked.length, 2, 'the other account stays for failover');
  assert.match(r.reason, /Adyen 70 %, Stripe 30 %|Stripe 30 %, Adyen 70 %/);
});

test('success rate: best trusted rate first, reason in words, static order without data', () => {
  const h = history([
    [adyen, 0, [minute(NOW, { succeeded: 94, soft: 6 })]],
    [stripe, 0, [minute(NOW, { succeeded: 80, soft: 10, technical: 10, hard: 40 })]],
    [stripe, 2, [minute(NOW, { succeeded: 80, soft: 10, technical: 10, hard: 40 })]],
  ]);
  const health = new Map([['pac_stripe', attempts('aaaaaaaaat')], ['pac_adyen', attempts('aaaaaaaaaa')]]);
  const noExplore = ids.find((id) => !rank({ type: 'success_rate' }, input(h, id, undefined, health)).explored)!;
  const r = rank({ type: 'success_rate' }, input(h, noExplore, undefined, health));
  assert.deepEqual(r.ranked.map((c) => c.account.providerCode), ['adyen', 'stripe']);
  // Approval when answered (80 of 90; hard declines are not the provider's) times recent availability (90 %).
  assert.deepEqual(r.ranked.map((c) => c.score?.toFixed(4)), ['0.9400', '0.8000']);
  assert.equal(r.reason, 'Adyen first: 94.0 % over 100 recent EUR Visa DE card payments; '
    + 'Stripe 88.9 % over 90 recent EUR Visa DE card payments, 10.0 % technical failures lately; 4 % exploration');
  const none = rank({ type: 'success_rate' }, input(new Map(), noExplore));
  assert.deepEqual(none.ranked.map((c) => c.account.providerCode), ['stripe', 'adyen']);
  assert.match(none.reason, /no trusted success rate yet/);
});

test('success rate falls back from the finest segment to coarser ones below the minimum sample', () => {
  const h = history([
    [adyen, 0, [minute(NOW, { succeeded: 5 })]],
    [adyen, 1, [minute(NOW, { succeeded: 5, soft: 30 })]],
    [stripe, 0, [minute(NOW, { succeeded: 3, soft: 1 })]],
    [stripe, 2, [minute(NOW, { succeeded: 60, soft: 10 })]],
  ]);
  const id = ids.find((i) => !rank({ type: 'success_rate' }, input(h, i)).explored)!;
  const r = rank({ type: 'success_rate' }, input(h, id));
  assert.deepEqual(r.ranked.map((c) => c.account.providerCode), ['stripe', 'adyen']);
  assert.match(r.reason, /Stripe first: 85\.7 % over 70 recent EUR card payments; Adyen 14\.3 % over 35 recent EUR DE card payments/);
});

test('exploration is bounded by its share, sticky per payment, and starts at the least-known account', () => {
  const third = account('mollie', 'Mollie');
  const h = history([
    [adyen, 2, [minute(NOW, { succeeded: 95, soft: 5 })]],
    [stripe, 2, [minute(NOW, { succeeded: 85, soft: 15 })]],
    [third, 2, [minute(NOW, { succeeded: 40, soft: 10 })]],
  ]);
  const runs = ids.map((id) => rank({ type: 'success_rate' }, input(h, id, [stripe, adyen, third])));
  const explored = runs.filter((r) => r.explored);
  const share = explored.length / ids.length;
  assert.ok(share > 0.025 && share <= 0.055, `explored ${share}`);
  assert.ok(explored.every((r) => r.ranked[0]!.account.providerCode === 'mollie' && r.ranked[1]!.account.providerCode === 'adyen'));
  assert.match(explored[0]!.reason, /^Mollie first by exploration/);
  assert.ok(runs.filter((r) => !r.explored).every((r) => r.ranked[0]!.account.providerCode === 'adyen'));
  assert.equal(rank({ type: 'success_rate', settings: { explorationShare: 0 } }, input(h, explored[0] ? ids[runs.indexOf(explored[0])]! : 'x')).explored, false);
});

test('elimination moves an account with recent technical failures to the end, probed once every 1/share attempts', () => {
  const elim = (health: HealthHistory) => rank({ type: 'elimination' }, input(new Map(), 'pay_1', undefined, health));
  // Stripe's newest 10 attempts: 8 technical (newest 10 s ago), Adyen answered 10 since: not yet due (20 at 5 %).
  const normal = elim(new Map([['pac_stripe', attempts('ttttatattt', 10)], ['pac_adyen', attempts('aaaaaaaaaa')]]));
  assert.deepEqual(normal.ranked.map((c) => c.account.providerCode), ['adyen', 'stripe'], 'never removed');
  assert.equal(normal.explored, false);
  assert.match(normal.reason, /Stripe moved to the end \(80\.0 % technical failures in its last 10 attempts\)/);
  // 20 of the segment's attempts since Stripe's newest: the probe is due, whatever the payment.
  const due = elim(new Map([['pac_stripe', attempts('ttttatattt', 20)], ['pac_adyen', attempts('a'.repeat(20))]]));
  assert.deepEqual(due.ranked.map((c) => c.account.providerCode), ['stripe', 'adyen']);
  assert.equal(due.explored, true);
  assert.match(due.reason, /^Stripe first as a probe \(one payment in 20 of its segment/);
  assert.equal(due.probed, 'pac_stripe');
  // The same moment with this process's probe of Stripe still in flight: not probed again.
  const inFlight = rank({ type: 'elimination' }, {
    ...input(new Map(), 'pay_1', undefined, new Map([['pac_stripe', attempts('ttttatattt', 20)], ['pac_adyen', attempts('a'.repeat(20))]])),
    probing: new Set(['pac_stripe']),
  });
  assert.deepEqual([inFlight.ranked[0]!.account.providerCode, inFlight.explored, inFlight.probed], ['adyen', false, undefined]);
  // An answered probe is confirmed by the next payment; two answered end the outage.
  const answered = elim(new Map([['pac_stripe', attempts('atttatattt', 1)], ['pac_adyen', attempts('a')]]));
  assert.equal(answered.ranked[0]!.account.providerCode, 'stripe');
  assert.equal(answered.explored, true);
  const back = elim(new Map([['pac_stripe', attempts('aatttttttt', 1)], ['pac_adyen', attempts('a')]]));
  assert.equal(back.ranked[0]!.account.providerCode, 'stripe');
  assert.equal(back.explored, false);
  assert.match(back.reason, /^all healthy/);
  // Too few attempts are no evidence (hard declines are never read).
  assert.equal(elim(new Map([['pac_stripe', attempts('tttt')]])).ranked[0]!.account.providerCode, 'stripe');
});

test('expected value: a cheaper account wins only while its rate pays for the difference', () => {
  const cheap = { ...stripe, feeBps: 100 };
  const dear = { ...adyen, feeBps: 1000 };
  const rates = (cheapRate: number) => history([
    [cheap, 2, [minute(NOW, { succeeded: cheapRate, soft: 100 - cheapRate })]],
    [dear, 2, [minute(NOW, { succeeded: 95, soft: 5 })]],
  ]);
  const id = ids.find((i) => !rank({ type: 'expected_value' }, input(rates(90), i)).explored)!;
  // 0.90 × 9,900 = 8,910 against 0.95 × 9,000 = 8,550: the cheaper one.
  assert.equal(rank({ type: 'expected_value' }, input(rates(90), id, [dear, cheap])).ranked[0]!.account.providerCode, 'stripe');
  // 0.80 × 9,900 = 7,920: the dearer one.
  const r = rank({ type: 'expected_value' }, input(rates(80), id, [dear, cheap]));
  assert.equal(r.ranked[0]!.account.providerCode, 'adyen');
  assert.match(r.reason, /^Adyen first: 85\.50 EUR expected \(95\.0 % of 90\.00 EUR after fees\)/);
});

test('a rule\'s strategy is validated: types, weights summing to 100, shares and thresholds in range', () => {
  const providers = ['adyen', 'stripe'];
  assert.equal(strategyProblem({ type: 'priority' }, providers), undefined);
  assert.equal(strategyProblem({ type: 'success_rate', settings: { explorationShare: 0.05, minSample: 50 } }, providers), undefined);
  assert.equal(strategyProblem({ type: 'volume_split', weights: { adyen: 60, stripe: 40 } }, providers), undefined);
  assert.deepEqual(strategyProblem({ type: 'random' }, providers)?.[0], 'strategy.type');
  assert.match(strategyProblem({ type: 'volume_split', weights: { adyen: 60, stripe: 30 } }, providers)![1], /sum to 100 \(they sum to 90\)/);
  assert.match(strategyProblem({ type: 'volume_split', weights: { mollie: 100 } }, providers)![1], /not one of the rule's providers/);
  assert.match(strategyProblem({ type: 'volume_split', weights: { adyen: 100.5 } }, providers)![1], /whole number/);
  assert.equal(strategyProblem({ type: 'success_rate', settings: { explorationShare: 0.5 } }, providers)![0], 'strategy.settings.explorationShare');
  assert.equal(strategyProblem({ type: 'elimination', settings: { eliminationThreshold: 2 } }, providers)![0], 'strategy.settings.eliminationThreshold');
  assert.equal(strategyProblem({ type: 'elimination', settings: { bogus: 1 } }, providers)![0], 'strategy.settings.bogus');
  assert.equal(strategyProblem({ type: 'success_rate', settings: { minSample: 500 } }, providers)![0], 'strategy.settings.minSample');
  assert.equal(strategyProblem({ type: 'cheapest', weights: {} }, providers)![0], 'strategy.weights');
  assert.equal(DEFAULT_SETTINGS.explorationShare, 0.04);
});
