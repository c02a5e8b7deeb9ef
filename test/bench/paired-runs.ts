// Two variants of the all-in-one process compared on one busy machine: the same closed loop of
// payments run A B, B A, A B, ..., each on a fresh process and database so neither side inherits
// the other's tables. Interleaving spreads the machine's drift over both sides; the figures are
// printed, never judged. Besides throughput and latency, each run reports the server process's CPU
// time per payment: on a busy two-core machine the rates swing with whatever else runs, while the
// CPU a payment costs the process barely does, so that ratio is the steadier measure.
// Used by metrics-overhead.ts, in-process-calls.ts and workers.ts.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { closedLoop, format, type Call, type Result } from './load.js';
import { treeCpuMs } from './counts.js';
import { startAllInOne, type AllInOneVariant } from '../helpers/all-in-one-process.js';

export type PaymentCall = (secret: string, keyed: boolean) => () => Call;
export type Run = Result & { cpuMsPerPayment: number };

export interface RunOptions { clients: number; seconds: number; warmup: number }

/** One side of the comparison: how its process starts, and what runs beside its measured loop. */
export interface Side {
  variant: AllInOneVariant;
  /** Started with the measured loop, stopped after it; its answer is printed beside the run's figures. */
  beside?: () => { stop(): Promise<string> };
  /** A file to write a CPU profile of the measured loop to (cpu-profile.ts; the entry must listen for SIGUSR2). */
  profile?: string;
}

export async function oneRun(natsUrl: string, call: PaymentCall, side: Side, opts: RunOptions): Promise<Run> {
  const { clients, seconds, warmup } = opts;
  const target = await startAllInOne(natsUrl, side.variant);
  try {
    const plain = call(target.secret, false);
    await closedLoop(target.baseUrl, plain, 201, clients, warmup);
    const beside = side.beside?.();
    const pid = target.process.child.pid!;
    if (side.profile) process.kill(pid, 'SIGUSR2');
    const cpuBefore = await treeCpuMs(pid);
    const result = await closedLoop(target.baseUrl, plain, 201, clients, seconds);
    const cpuMsPerPayment = ((await treeCpuMs(pid)) - cpuBefore) / Math.max(1, result.requests);
    if (side.profile) {
      process.kill(pid, 'SIGUSR2');
      for (let i = 0; i < 100 && !existsSync(side.profile); i++) await sleep(100);
    }
    const besides = await beside?.stop();
    console.log(format(`${target.name}, ${clients} clients`, result)
      + `  ${cpuMsPerPayment.toFixed(2)} CPU ms/payment` + (besides ? `  ${besides}` : ''));
    return { ...result, cpuMsPerPayment };
  } finally {
    await target.close();
  }
}

const mean = (rs: Run[], pick: (r: Run) => number) => rs.reduce((s, r) => s + pick(r), 0) / rs.length;

/** `pairs` A B pairs, then a table of the means and B ÷ A. */
export async function pairedRuns(
  natsUrl: string, call: PaymentCall, sides: { a: Side; b: Side }, opts: RunOptions & { pairs: number },
): Promise<{ a: Run[]; b: Run[] }> {
  const runs = { a: [] as Run[], b: [] as Run[] };
  // The second run of a pair is slower whichever side it is (the first's database was just
  // dropped), so pairs alternate A B, B A: the order's effect falls on both sides alike.
  for (let i = 0; i < opts.pairs; i++) {
    for (const side of i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      runs[side].push(await oneRun(natsUrl, call, sides[side], opts));
    }
  }
  const row = (label: string, pick: (r: Run) => number, unit: string, digits: number) => {
    const a = mean(runs.a, pick);
    const b = mean(runs.b, pick);
    return `| ${label} | ${a.toFixed(digits)}${unit} | ${b.toFixed(digits)}${unit} | ${(b / a).toFixed(3)} |`;
  };
  const [nameA, nameB] = [sides.a.variant.name, sides.b.variant.name];
  console.log(`
| mean of ${opts.pairs} runs each | ${nameA} | ${nameB} | ${nameB} ÷ ${nameA} |
|---|---|---|---|
${row('throughput', (r) => r.perSecond, '/s', 0)}
${row('p50', (r) => r.p50, ' ms', 1)}
${row('p99', (r) => r.p99, ' ms', 1)}
${row('server CPU per payment', (r) => r.cpuMsPerPayment, ' ms', 2)}`);
  const errors = [...runs.a, ...runs.b].reduce((s, r) => s + r.errors, 0);
  if (errors > 0) console.log(`note: ${errors} errors across the paired runs`);
  return runs;
}
