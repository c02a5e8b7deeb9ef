import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RiskInput } from '../proto/gen/svc/risk/v1/risk_pb.js';
import type { Scope } from '../proto/gen/svc/common/v1/common_pb.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { INTERNAL_EVENT_TYPES, type AttemptSettledEvent } from '../services/platform/internal-events.js';
import { migrate } from '../services/platform/migrate.js';
import { pruneOutcomeMinutes } from '../services/routing-risk/outcome-minute-retention.js';
import { createOutcomeStore } from '../services/routing-risk/outcome-store.js';
import { createStore } from '../services/routing-risk/store.js';
import { DEFAULT_SETTINGS, outcomeKind, recentHealth, type SegmentHistory } from '../services/routing-risk/strategies/index.js';
import { OutcomeMemory } from '../services/routing-risk/simulator/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

// The planning read's outcome history, as the outcome writer counts it (outcome-store.ts)
// and store.ts reads it, equals what the routing simulator's in-memory statistics (routing-risk's simulator/) compute from
// the same outcomes with outcomeKind: so the simulator measures the code the service runs.

let db: TestDatabase;
let pool: Pool;
let store: ReturnType<typeof createStore>;

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 'routing_risk', 4);
  await migrate(pool, 'routing_risk', 'services/routing-risk');
  store = createStore(pool);
});
after(async () => {
  await pool?.end();
  await db?.drop();
});

const scope = { merchantId: 'mer_h', projectId: 'prj_h', mode: 'test' } as Scope;
const NOW_MINUTE = 29_000_000;
const at = new Date(NOW_MINUTE * 60_000 + 30_000);

interface Outcome {
  account: string; country: string | null; network: string | null; status: string; category: string | null;
  minutesAgo: number; project?: string; currency?: string;
  /** Seconds before the real now instead (the health read ages by the database's clock). */
  secondsAgo?: number;
}

const input = { paymentId: 'pay_next', amount: 1000n, currency: 'EUR', country: 'DE', paymentMethodType: 'card' } as RiskInput;
const key = { cardNetwork: 'visa', nowMinute: NOW_MINUTE };
const learningRule = {
  name: 'learn', priority: 1, currencies: [], countries: [], methods: [], minAmount: null, maxAmount: null,
  providers: ['alpha', 'beta'], strategy: { type: 'success_rate' as const },
};
const minutesOf = async (project: string) => (await pool.query(
  `SELECT country || ' ' || card_network AS level, sum(succeeded)::int AS succeeded, sum(technical)::int AS technical
   FROM outcome_minutes WHERE project_id = $1 GROUP BY 1 ORDER BY 1`, [project])).rows;

let n = 0;
function event(o: Outcome): AttemptSettledEvent {
  n += 1;
  const settled = new Date(o.secondsAgo === undefined ? (NOW_MINUTE - o.minutesAgo) * 60_000 + (n % 60) * 1000
    : Date.now() - o.secondsAgo * 1000).toISOString();
  return {
    id: `evt_h${n}`, type: INTERNAL_EVENT_TYPES.attemptSettled, mode: 'test', merchant_id: 'mer_h',
    project_id: o.project ?? 'prj_h', created_at: settled,
    data: {
      object: {
        version: 1, id: `att_h${n}`, payment_id: `pay_h${n}`, attempt_number: 1, provider_id: `prv_${o.account}`,
        provider_code: o.account, provider_account_id: `pac_${o.account}`, payment_method: 'card', currency: o.currency ?? 'EUR',
        country: o.country, card_network: o.network, bin_range: null, status: o.status,
        outcome: o.status === 'failed' ? 'declined' : 'success', failure_category: o.category, failure_code: null,
        latency_ms: 100, amount: 1000n, settled_at: settled,
      },
    },
  } as AttemptSettledEvent;
}

/** Minutes sorted, so two histories compare whatever order rows came in. */
function normalised(h: SegmentHistory) {
  return [...h].sort(([a], [b]) => (a < b ? -1 : 1)).map(([account, levels]) => [account,
    [...levels].sort(([a], [b]) => a - b).map(([level, minutes]) => [level, [...minutes].sort((x, y) => x.minute - y.minute)])]);
}

test('minutes are counted only for a scope with a learning rule, a redelivery once', async () => {
  const quiet = { ...scope, projectId: 'prj_quiet' } as Scope;
  const recorder = createOutcomeStore(pool);
  const first = [event({ account: 'alpha', country: 'DE', network: 'visa', status: 'succeeded', category: null, minutesAgo: 1, project: 'prj_quiet' })];
  // A rule that does not learn is no reason to count.
  await store.createRule(quiet, 'rtr_q1', { ...learningRule, name: 'fixed', strategy: { type: 'priority' } as never }, at);
  assert.deepEqual(await recorder.recordMany(first, at), [true], 'the outcome row is claimed all the same');
  assert.deepEqual(await minutesOf('prj_quiet'), []);
  assert.equal((await store.planningInputs(quiet, input, at, key)).history.size, 0, 'and nothing is read');

  await store.createRule(quiet, 'rtr_q2', learningRule, at);
  const second = event({ account: 'alpha', country: 'DE', network: 'visa', status: 'failed', category: 'technical', minutesAgo: 1, project: 'prj_quiet' });
  // The earlier outcome again (claimed before the rule learned: never counted) beside a new one.
  assert.deepEqual(await recorder.recordMany([first[0]!, second], at), [false, true]);
  assert.deepEqual(await recorder.recordMany([second, second], at), [false, false], 'a redelivery is a repeat');
  const once = [
    { level: '* *', succeeded: 0, technical: 1 }, { level: 'DE *', succeeded: 0, technical: 1 }, { level: 'DE visa', succeeded: 0, technical: 1 },
  ];
  assert.deepEqual(await minutesOf('prj_quiet'), once);
  assert.equal((await store.planningInputs(quiet, input, at, key)).history.get('pac_alpha')?.get(2)?.[0]?.technical, 1);
});

test('the planning read\'s history is what the simulator computes from the same outcomes; a redelivery counts once', async () => {
  const outcomes: Outcome[] = [];
  const kinds: Array<[string, string | null]> = [['succeeded', null], ['authorized', null], ['failed', 'soft'],
    ['failed', 'hard'], ['failed', 'policy'], ['failed', 'technical'], ['failed', null]];
  const places: Array<[string | null, string | null]> = [['DE', 'visa'], ['DE', 'mastercard'], ['DE', null], ['FR', 'visa'], [null, null]];
  for (const account of ['alpha', 'beta']) {
    for (const [i, [status, category]] of kinds.entries()) {
      for (const [j, [country, network]] of places.entries()) {
        outcomes.push({ account, country, network, status, category, minutesAgo: (i * 7 + j * 3) % 130 });
      }
    }
  }
  // Not this payment's history: another project, another currency, older than the read's two hours.
  outcomes.push({ account: 'alpha', country: 'DE', network: 'visa', status: 'succeeded', category: null, minutesAgo: 1, project: 'prj_other' });
  outcomes.push({ account: 'alpha', country: 'DE', network: 'visa', status: 'succeeded', category: null, minutesAgo: 1, currency: 'USD' });
  outcomes.push({ account: 'beta', country: 'DE', network: 'visa', status: 'succeeded', category: null, minutesAgo: 125 });

  // Minutes are counted for scopes with a learning rule: this one from the start.
  await store.createRule(scope, 'rtr_h', learningRule, at);
  await store.createRule({ ...scope, projectId: 'prj_other' } as Scope, 'rtr_o', learningRule, at);
  const recorder = createOutcomeStore(pool);
  const memory = new OutcomeMemory();
  for (const o of outcomes) {
    const e = event(o);
    assert.deepEqual(await recorder.recordMany([e], at), [true]);
    assert.deepEqual(await recorder.recordMany([e], at), [false], 'a redelivery is a repeat');
    if ((o.project ?? 'prj_h') === 'prj_h') {
      const x = e.data.object;
      memory.record(x.provider_account_id, { method: 'card', currency: x.currency, country: x.country ?? '', cardNetwork: x.card_network ?? '' },
        outcomeKind(x.status, x.failure_category), Math.floor(Date.parse(x.settled_at) / 1000));
    }
  }

  const read = await store.planningInputs(scope, input, at, key);
  assert.equal(read.rules[0]!.strategy?.type, 'success_rate');
  const simulated = memory.history({ method: 'card', currency: 'EUR', country: 'DE', cardNetwork: 'visa' }, NOW_MINUTE);
  assert.deepEqual(normalised(read.history), normalised(simulated));
  // The finest level holds DE Visa only; the coarsest every country, unknown ones included.
  const alpha = read.history.get('pac_alpha')!;
  const total = (level: 0 | 1 | 2) => alpha.get(level)!.reduce((sum, m) => sum + m.succeeded + m.soft + m.hard + m.technical, 0);
  assert.deepEqual([total(0), total(1), total(2)], [7, 21, 35]);
  assert.equal(alpha.get(2)!.reduce((sum, m) => sum + m.hard, 0), 10, 'hard and policy declines are hard');
  assert.equal(alpha.get(2)!.reduce((sum, m) => sum + m.technical, 0), 10, 'technical and uncategorised failures are technical');
});

test('health: each account\'s newest attempts in real time, newest first, hard declines left out, as the simulator keeps them', async () => {
  const live = { ...scope, projectId: 'prj_live' } as Scope;
  await store.createRule(live, 'rtr_live', { ...learningRule, providers: ['demo_alpha', 'demo_beta'] }, at);
  const recorder = createOutcomeStore(pool);
  const memory = new OutcomeMemory();
  // Beta: 30 answered attempts over the last minutes, then an outage: its newest 6 technical, one card's hard decline between.
  const outcomes: Outcome[] = [
    ...Array.from({ length: 30 }, (_, i) => ({ secondsAgo: 300 - i * 5, status: i % 4 === 0 ? 'failed' : 'succeeded', category: i % 4 === 0 ? 'soft' : null })),
    { secondsAgo: 40, status: 'failed', category: 'hard' },
    ...Array.from({ length: 6 }, (_, i) => ({ secondsAgo: 30 - i * 5, status: 'failed', category: 'technical' })),
  ].map((o) => ({ account: 'demo_beta', country: 'DE', network: 'visa', minutesAgo: 0, project: 'prj_live', ...o }));
  outcomes.push({ account: 'demo_alpha', country: 'FR', network: null, status: 'succeeded', category: null, minutesAgo: 0, secondsAgo: 10, project: 'prj_live' });
  outcomes.push({ account: 'demo_alpha', country: 'DE', network: 'visa', status: 'failed', category: 'technical', minutesAgo: 0, secondsAgo: 5, project: 'prj_live', currency: 'USD' });
  for (const o of outcomes) {
    const e = event(o);
    assert.deepEqual(await recorder.recordMany([e], at), [true]);
    const x = e.data.object;
    memory.record(x.provider_account_id, { method: 'card', currency: x.currency, country: x.country ?? '', cardNetwork: x.card_network ?? '' },
      outcomeKind(x.status, x.failure_category), Date.parse(x.settled_at) / 1000);
  }
  const read = await store.planningInputs(live, input, at, key);
  const simulated = memory.health({ method: 'card', currency: 'EUR', country: 'DE', cardNetwork: 'visa' }, ['pac_demo_alpha', 'pac_demo_beta'], Date.now() / 1000);
  const flags = (h: typeof simulated) => [...h].sort(([a], [b]) => (a < b ? -1 : 1)).map(([account, list]) => [account, list.map((x) => (x.technical ? 't' : 'a')).join('')]);
  assert.deepEqual(flags(read.health), flags(simulated));
  assert.deepEqual(flags(read.health), [['pac_demo_alpha', 'a'], ['pac_demo_beta', `tttttt${'a'.repeat(30)}`]], 'every country of the currency; not USD');
  const ages = read.health.get('pac_demo_beta')!.map((x) => x.ageSeconds);
  assert.ok(ages[0]! >= 5 && ages[0]! < 60 && ages.every((x, i) => i === 0 || x >= ages[i - 1]!), `newest first by the database's clock: ${ages.join(', ')}`);
  // Six failures in a row after 30 good attempts: 30 % of the newest 20, however full the bucket.
  assert.equal(recentHealth(read.health.get('pac_demo_beta'), DEFAULT_SETTINGS).share, 0.3);
});

test('a scope that starts learning counts the outcomes it already recorded, bounded and once', async () => {
  const back = { ...scope, projectId: 'prj_back' } as Scope;
  const recorder = createOutcomeStore(pool);
  // Recorded while no rule of the scope learned: 9 answered and 3 technical in the last hour, one older than the two hours.
  const outcomes: Outcome[] = [
    ...Array.from({ length: 12 }, (_, i) => ({ secondsAgo: 3600 - i * 240, status: i % 4 === 3 ? 'failed' : 'succeeded', category: i % 4 === 3 ? 'technical' : null })),
    { secondsAgo: 3 * 3600, status: 'succeeded', category: null },
  ].map((o) => ({ account: 'demo_alpha', country: 'DE', network: 'visa', minutesAgo: 0, project: 'prj_back', ...o }));
  for (const o of outcomes) assert.deepEqual(await recorder.recordMany([event(o)], at), [true]);
  assert.deepEqual(await minutesOf('prj_back'), [], 'nothing counted without a learning rule');

  await store.createRule(back, 'rtr_back', learningRule, at);
  assert.equal(await store.backfillMinutes(back), 12, 'the two hours\' outcomes, not the older one');
  const counted = [{ succeeded: 9, technical: 3 }].flatMap((c) => ['* *', 'DE *', 'DE visa'].map((level) => ({ level, ...c })));
  assert.deepEqual(await minutesOf('prj_back'), counted);
  assert.equal(await store.backfillMinutes(back), 0, 'a bucket already counted is never counted again');
  assert.deepEqual(await minutesOf('prj_back'), counted);
});

test('minutes past retention are pruned in batches, newer ones kept', async () => {
  const count = async (where: string) =>
    (await pool.query(`SELECT count(*)::int AS n FROM outcome_minutes WHERE ${where}`, [NOW_MINUTE - 20])).rows[0].n as number;
  const older = await count('minute < $1');
  const newer = await count('minute >= $1');
  assert.ok(older > 3 && newer > 0, `${older} older and ${newer} newer minutes to start from`);
  assert.equal(await pruneOutcomeMinutes(pool, NOW_MINUTE - 20, 2), older);
  assert.equal(await count('minute < $1'), 0);
  assert.equal(await count('minute >= $1'), newer);
});
