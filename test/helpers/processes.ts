import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponse_ServingStatus } from '../../proto/gen/grpc/health/v1/health_pb.js';
import { projectPath } from '../../services/platform/paths.js';
import { startDeadline } from './start-deadline.js';

export interface PartProcess {
  name: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM, then the exit code (null if it had to be killed). */
  stop(timeoutMs?: number): Promise<number | null>;
}

// A port the kernel hands out for listen(0) comes from the ephemeral range, which every outgoing
// connection of every test process draws from too: between our probe and the child's listen, one
// of them took it (EADDRINUSE in CI). Ports below that range are never picked for connections;
// within a process each is handed out once, and other test files pick at random among thousands.
const LOWEST_PORT = 10_000;
const handedOut = new Set<number>();

function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port free now, below the ephemeral range, for a child process to listen on. */
export async function freePort(): Promise<number> {
  const span = ephemeralLow() - LOWEST_PORT;
  for (;;) {
    const port = LOWEST_PORT + Math.floor(Math.random() * span);
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
}

// The benchmark's before/after runs start another checkout's build (BENCH_ROOT) the same way.
const buildRoot = process.env.BENCH_ROOT ?? projectPath();

/** Runs a compiled entrypoint (`dist/...js`) as its own process with exactly the given environment. */
export function spawnPart(name: string, entry: string, env: Record<string, string>): PartProcess {
  const child = spawn(process.execPath, [join(buildRoot, 'dist', entry)], {
    cwd: buildRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    name,
    child,
    output: () => out,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Waits until the part answers grpc.health.v1.Health/Check with SERVING (start-deadline.ts: `timeoutMs` and a fair share of CPU). */
export async function waitForHealth(part: PartProcess, baseUrl: string, timeoutMs = 30_000): Promise<void> {
  const client = createClient(Health, createGrpcTransport({ baseUrl }));
  const deadline = startDeadline(part.child.pid, timeoutMs);
  for (;;) {
    if (part.child.exitCode !== null) throw new Error(`${part.name} exited early:\n${part.output()}`);
    try {
      const res = await client.check({ service: '' }, { timeoutMs: 1000 });
      if (res.status === HealthCheckResponse_ServingStatus.SERVING) return;
    } catch {
      // Not listening yet.
    }
    if (deadline.passed()) throw new Error(`${part.name} never became healthy (${deadline.describe()}):\n${part.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function waitForHttp(part: PartProcess, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = startDeadline(part.child.pid, timeoutMs);
  for (;;) {
    if (part.child.exitCode !== null) throw new Error(`${part.name} exited early:\n${part.output()}`);
    try {
      await fetch(url);
      return;
    } catch {
      if (deadline.passed()) throw new Error(`${part.name} never answered HTTP (${deadline.describe()}):\n${part.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** kill -9: the part gets no chance to finish anything; resolves once the process is gone. */
export async function killPart(part: PartProcess): Promise<void> {
  const { child } = part;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await gone;
}

/** The part's exit code once it exits, or 'running' if it has not within `timeoutMs`. */
export function exitOf(part: PartProcess, timeoutMs: number): Promise<number | null | 'running'> {
  if (part.child.exitCode !== null) return Promise.resolve(part.child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('running'), timeoutMs);
    part.child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
