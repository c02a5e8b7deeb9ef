import { spawn } from 'node:child_process';
import { cpSync, readdirSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectPath } from '../../services/platform/paths.js';
import type { PartProcess } from './processes.js';

// A copy of this checkout, as a new clone would have it, for tests that build and start it: its
// files with their modification times, no dist/ (the first build is the cold one), no data, and the
// checkout's installed dependencies linked in, so nothing is installed nor downloaded.

const LEFT_OUT = new Set(['node_modules', '.git', '.data', 'dist']);

/** Copies this checkout into dir (which exists) and links its node_modules. */
export function copyCheckout(dir: string): void {
  const root = projectPath();
  cpSync(root, dir, {
    recursive: true,
    preserveTimestamps: true,
    filter: (src) => !LEFT_OUT.has(relative(root, src)),
  });
  symlinkSync(realpathSync(projectPath('node_modules')), join(dir, 'node_modules'));
}

/** Every file under dir/sub with its modification time: what a build wrote shows as a changed time. */
export function fileTimes(dir: string, sub = 'dist'): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(relative(dir, full), statSync(full).mtimeMs);
    }
  };
  walk(join(dir, sub));
  return out;
}

/** The files written, added or removed between two fileTimes snapshots. */
export function changedFiles(before: Map<string, number>, after: Map<string, number>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((f) => before.get(f) !== after.get(f)).sort();
}

export interface Run {
  code: number | null;
  output: string;
  seconds: number;
}

/** Runs a command in dir to its end, stdout and stderr together, and how long it took. */
export function run(command: string, args: string[], dir: string, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output, seconds: (performance.now() - started) / 1000 }));
  });
}

/**
 * `npm start` in dir as a person runs it, in a process group of its own: stopping it signals npm,
 * the shell and the server together, as Ctrl-C in a terminal does.
 */
export function npmStart(dir: string, env: Record<string, string>): PartProcess {
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // The group is gone already.
    }
  };
  return {
    name: 'npm start',
    child,
    output: () => out,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null) return child.exitCode;
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
