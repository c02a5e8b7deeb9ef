// Loaded into a part with NODE_OPTIONS=--import (Node refuses --cpu-prof there): with
// BENCH_PROFILE_DIR set, SIGUSR2 starts the sampling profiler and the next SIGUSR2 writes
// <dir>/<entry>-<pid>.cpuprofile (cpu-profile.ts). Used by six-processes-cpu.ts.
import { basename, join } from 'node:path';
import { profileOnSignal } from './cpu-profile.js';

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) profileOnSignal(join(dir, `${basename(process.argv[1] ?? 'node', '.js')}-${process.pid}.cpuprofile`));
