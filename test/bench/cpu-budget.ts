import { availableParallelism } from 'node:os';
import { cpuByProcess, cpuSpentBetween } from './counts.js';

// The CPU budget: what a payment may cost, in CPU milliseconds, if the parts are to answer
// 0.08 × the baseline's rate when every core is busy, split into a budget per part, printed next to
// what each part spends (per sequential payment, and under the six-process closed loop).

/** The rate the six-process and all-in-one modes are to reach, as a multiple of the baseline's. */
export const TARGET_RATIO = 0.08;

// Each part's share of the budget, from where a payment's work must be rather than where it is
// today. Postgres gets the largest: the baseline's own request is one durable commit and little
// else, and a payment needs several (the payment's creation, the provider's answer, the ledger's
// batch), so the database's work is the part of the cost no code change in a part removes. The
// gateway does what the baseline's Fastify does (parse, answer) plus the API key's admission and
// one call to payments. Payments is the orchestrator: a call in, one out to routing-risk, the
// state changes and the outbox. Routing-risk answers one call from one statement's data. The
// ledger and webhooks consume the payment's events in batches (the bench's merchant has no
// endpoints, so webhooks only fans out to none). NATS carries a few publishes and their deliveries
// to three consumers. Payouts has no share: a payment never reaches it, so whatever it spends is
// idle polling, printed beside the others without a budget.
export const SHARES: Readonly<Record<string, number>> = {
  gateway: 0.15,
  payments: 0.22,
  'routing-risk': 0.1,
  ledger: 0.08,
  webhooks: 0.05,
  postgres: 0.3,
  nats: 0.1,
};

/** CPU ms per payment, by part (process names, `postgres`, `nats`). */
export type Spend = Record<string, number>;

/** The formula, written once: the CPU a payment may spend for TARGET_RATIO × the baseline with every core busy. */
export function budgetPerPayment(baselinePerSecond: number, cores = availableParallelism()): number {
  return (cores * 1000) / (TARGET_RATIO * baselinePerSecond);
}

/**
 * CPU ms per completed payment of each group of processes over `run` (its answer's `requests`).
 * `groups` lists the processes anew before and after: the pools open and close Postgres backends
 * within a run (cpuSpentBetween).
 */
export async function spendDuring<R extends { requests: number }>(
  groups: () => Promise<Record<string, number[]>>, run: () => Promise<R>,
): Promise<{ result: R; spend: Spend }> {
  const before = await cpuByProcess(await groups());
  const result = await run();
  const spent = cpuSpentBetween(before, await cpuByProcess(await groups()));
  const n = Math.max(1, result.requests);
  return { result, spend: Object.fromEntries(Object.entries(spent).map(([g, ms]) => [g, ms / n])) };
}

/** The budget table: each part's share and budget against its spend alone and under load. */
export function printBudget(baselinePerSecond: number, spend: { sequential?: Spend; underLoad?: Spend }): void {
  const cores = availableParallelism();
  const total = budgetPerPayment(baselinePerSecond, cores);
  const parts = [...new Set([...Object.keys(SHARES), ...Object.keys(spend.sequential ?? {}), ...Object.keys(spend.underLoad ?? {})])];
  const ms = (n: number | undefined) => (n === undefined ? '—' : n.toFixed(2));
  const over = (n: number | undefined, budget: number) => (n === undefined || budget === 0 ? '—' : (n / budget).toFixed(2));
  const sum = (s: Spend | undefined) => (s ? Object.values(s).reduce((a, b) => a + b, 0) : undefined);
  console.log(`
CPU budget per payment = cores × 1000 ms ÷ (${TARGET_RATIO} × baseline rate) = ${cores} × 1000 ÷ (${TARGET_RATIO} × ${baselinePerSecond.toFixed(0)}/s) = ${total.toFixed(2)} ms
(cores: os.availableParallelism(); baseline: mean of the run's two at the six processes' client count;
spend: CPU of each part process, of the database's Postgres processes and of the NATS server, from
/proc/<pid>/stat in 10 ms ticks; sequential = idle background subtracted, under load = over the
six-process closed loop ÷ payments completed)
| part | share | budget ms | sequential ms | ÷ budget | under load ms | ÷ budget |
|---|---|---|---|---|---|---|`);
  for (const p of parts) {
    const budget = (SHARES[p] ?? 0) * total;
    const seq = spend.sequential?.[p];
    const load = spend.underLoad?.[p];
    console.log(`| ${p} | ${((SHARES[p] ?? 0) * 100).toFixed(0)} % | ${budget.toFixed(2)} | ${ms(seq)} | ${over(seq, budget)} | ${ms(load)} | ${over(load, budget)} |`);
  }
  const seqAll = sum(spend.sequential);
  const loadAll = sum(spend.underLoad);
  console.log(`| all | 100 % | ${total.toFixed(2)} | ${ms(seqAll)} | ${over(seqAll, total)} | ${ms(loadAll)} | ${over(loadAll, total)} |`);
}
