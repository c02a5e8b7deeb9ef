// `npm start` on DATABASE_URL and NATS_URL served by one process (WORKERS=1, A) and by one worker
// per core (WORKERS=0, B), in interleaved pairs (paired-runs.ts); the CPU per payment counts
// the supervisor and its workers.
import { availableParallelism } from 'node:os';
import { pairedRuns, type PaymentCall, type RunOptions, type Side } from './paired-runs.js';

const side = (name: string, env: Record<string, string>): Side => ({
  variant: { name, entry: 'all-in-one/main.js', env },
});

export async function workers(natsUrl: string, call: PaymentCall, opts: RunOptions & { pairs: number }): Promise<void> {
  console.log(`workers: all-in-one on ${availableParallelism()} cores, ${opts.clients} clients, ${opts.seconds} s per run, ${opts.pairs} pairs (A B, B A, ...)`);
  await pairedRuns(natsUrl, call, { a: side('one process', { WORKERS: '1' }), b: side('workers', { WORKERS: '0' }) }, opts);
}
