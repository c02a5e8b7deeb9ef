import { readFile } from 'node:fs/promises';

// How often a process's event loop went to sleep and was woken: the voluntary context switches of
// its main thread (/proc/<pid>/task/<pid>/status; Linux only, 0 elsewhere). A Node process's main
// thread sleeps almost only in epoll_wait (the other is a collection waiting for its helper
// threads), so each is nearly always one wake-up by a socket, a timer or another thread. The V8 and
// libuv worker threads are left out: their switches are the collector's and the pool's.

export async function wakeups(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/task/${pid}/status`, 'utf8').catch(() => '');
  return Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
}

/** Wake-ups so far of each named process. */
export async function wakeupsOf(pids: Record<string, number>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) out[name] = await wakeups(pid);
  return out;
}

/** Wake-ups of all the named processes together between two readings, per request. */
export function wakeupsPerRequest(before: Record<string, number>, after: Record<string, number>, requests: number): number {
  const total = Object.keys(after).reduce((sum, name) => sum + after[name] - (before[name] ?? 0), 0);
  return total / Math.max(1, requests);
}
