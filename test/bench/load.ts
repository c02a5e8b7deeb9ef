import { Agent, request } from 'undici';

// Load generation for the benchmarks: closed-loop (N clients, each sends its next request when
// the previous answers) for throughput, open-loop (a fixed arrival rate) for latency at a load.

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Result {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summarise(latencies: number[], errors: number, seconds: number): Result {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? 0,
  };
}

async function send(dispatcher: Agent, origin: string, call: Call, expect: number): Promise<boolean> {
  const res = await request(`${origin}${call.path}`, {
    method: call.method, headers: call.headers, body: call.body, dispatcher,
  });
  await res.body.dump();
  return res.statusCode === expect;
}

/** `clients` concurrent loops for `seconds`; latencies in milliseconds. */
export async function closedLoop(
  origin: string, call: () => Call, expect: number, clients: number, seconds: number,
): Promise<Result> {
  const dispatcher = new Agent({ connections: clients, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const ok = await send(dispatcher, origin, call(), expect).catch(() => false);
      if (ok) latencies.push(performance.now() - t0);
      else errors++;
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  await dispatcher.close();
  return summarise(latencies, errors, elapsed);
}

/** A request every 1/rate seconds for `seconds`, whatever the answers; latencies in milliseconds. */
export async function openLoop(origin: string, call: () => Call, expect: number, rate: number, seconds: number): Promise<Result> {
  const dispatcher = new Agent({ connections: 256, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.max(1, Math.floor(rate * seconds));
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push((async () => {
      // Latency counts from when the request was due, so a stalled sender cannot hide queueing.
      const ok = await send(dispatcher, origin, call(), expect).catch(() => false);
      if (ok) latencies.push(performance.now() - due);
      else errors++;
    })());
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1000;
  await dispatcher.close();
  return summarise(latencies, errors, elapsed);
}

export function format(label: string, r: Result): string {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  return `${label.padEnd(44)} ${r.perSecond.toFixed(0).padStart(6)}/s  p50 ${ms(r.p50)}  p95 ${ms(r.p95)}  p99 ${ms(r.p99)}  max ${ms(r.max)}  (${r.requests} ok, ${r.errors} errors, ${r.seconds.toFixed(1)} s)`;
}

/** One request at a time for `seconds`: latency without any queueing. */
export async function oneClient(origin: string, call: () => Call, expect: number, seconds: number): Promise<Result> {
  return closedLoop(origin, call, expect, 1, seconds);
}
