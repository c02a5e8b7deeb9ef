import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

// On a machine shared with other test processes (two cores, a dozen runnable processes) a part
// can wait for a CPU far longer than it computes: a wall-clock deadline alone fails a start-up
// that was never slow, only starved. So the deadline is missed once the wall-clock time is up
// and the part has also had a fair share of CPU; a part blocked on something uses no CPU, so
// three times the wall-clock time ends the wait regardless.

/** USER_HZ, the unit of /proc/<pid>/stat's times, on every Linux the tests run on. */
const TICKS_PER_SECOND = 100;
const CPU_BUDGET_MS = 10_000;

/** The process's user and system CPU time so far; undefined where /proc does not say (macOS). */
function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's closing parenthesis: state is the first field, utime the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export interface StartDeadline {
  passed(): boolean;
  /** For the failure: how long, how much CPU the part had, and how loaded the machine was. */
  describe(): string;
}

export function startDeadline(pid: number | undefined, timeoutMs: number): StartDeadline {
  const start = Date.now();
  const cpu = () => (pid === undefined ? undefined : cpuMs(pid));
  return {
    passed() {
      const wall = Date.now() - start;
      if (wall < timeoutMs) return false;
      if (wall >= 3 * timeoutMs) return true;
      const used = cpu();
      return used === undefined || used >= CPU_BUDGET_MS;
    },
    describe() {
      const used = cpu();
      return `after ${((Date.now() - start) / 1000).toFixed(1)} s, ${used === undefined ? 'its CPU time unknown' : `${(used / 1000).toFixed(1)} s of CPU`}` +
        `, load average ${loadavg()[0].toFixed(1)}`;
    },
  };
}
