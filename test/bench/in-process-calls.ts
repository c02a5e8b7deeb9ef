// The all-in-one process (`npm start`'s entrypoint) with its parts calling each other
// directly (IN_PROCESS_CALLS=direct, A) and through Connect's router transport (router, B), which
// encodes every call as gRPC does, in interleaved pairs (paired-runs.ts).
import { pairedRuns, type PaymentCall, type RunOptions, type Side } from './paired-runs.js';

const side = (calls: 'direct' | 'router'): Side => ({
  variant: { name: calls, entry: 'all-in-one/main.js', env: { IN_PROCESS_CALLS: calls } },
});

export async function inProcessCalls(natsUrl: string, call: PaymentCall, opts: RunOptions & { pairs: number }): Promise<void> {
  console.log(`in-process calls: all-in-one, ${opts.clients} clients, ${opts.seconds} s per run, ${opts.pairs} pairs (A B, B A, ...)`);
  await pairedRuns(natsUrl, call, { a: side('direct'), b: side('router') }, opts);
}
