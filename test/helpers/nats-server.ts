import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { connect } from 'nats';
import { requireInCi } from './database.js';
import { freePort } from './processes.js';

// A NATS server process of the test's own (not the shared NATS_URL), so a test can kill it and
// start it again on the same port and storage directory, start it late on a port chosen before,
// or give it a small max_payload (an event the bus refuses).

export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/**
 * Why tests needing their own nats-server cannot run here, or false when they can. CI has it
 * installed: there a missing binary fails the run instead of skipping it.
 */
export function natsServerMissing(): string | false {
  if (existsSync(NATS_SERVER_BIN)) return false;
  if (process.env.CI) throw new Error(`${NATS_SERVER_BIN} must be installed in CI: chaos tests never skip there`);
  return `${NATS_SERVER_BIN} is not installed`;
}

export interface NatsServer {
  url: string;
  output(): string;
  /** SIGKILL, waiting for the exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port and storage (JetStream keeps what it had synced). */
  restart(): Promise<void>;
  /** Deletes its JetStream storage (kill it first): the next restart comes back without any stream, as after a lost volume. */
  wipeStore(): Promise<void>;
  /** Stops the server and removes its storage. */
  close(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Until JetStream answers: the port opens before JetStream is ready. */
async function waitForJetStream(url: string, child: ChildProcess, output: () => string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nats-server exited early:\n${output()}`);
    try {
      const nc = await connect({ servers: url, timeout: 1000, reconnect: false });
      try {
        await (await nc.jetstreamManager()).getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch {
      if (Date.now() > deadline) throw new Error(`nats-server never answered JetStream:\n${output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export interface NatsServerOptions {
  /** Default: a free one. */
  port?: number;
  /** The server's max_payload in bytes; default the server's own (1 MiB). */
  maxPayload?: number;
}

export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-nats-'));
  const port = opts.port ?? (await freePort());
  const url = `nats://127.0.0.1:${port}`;
  const config = [
    `listen: "127.0.0.1:${port}"`,
    ...(opts.maxPayload ? [`max_payload: ${opts.maxPayload}`] : []),
    `jetstream { store_dir: "${join(dir, 'js')}" }`,
  ];
  await writeFile(join(dir, 'nats.conf'), `${config.join('\n')}\n`);
  let out = '';
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(NATS_SERVER_BIN, ['-c', join(dir, 'nats.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await waitForJetStream(url, child, () => out);
  };
  await launch();
  const kill = async () => {
    child.kill('SIGKILL');
    await exited(child);
  };
  return {
    url,
    output: () => out,
    kill,
    restart: launch,
    async wipeStore() {
      if (child.exitCode === null && child.signalCode === null) throw new Error('wipeStore: kill the server first');
      await rm(join(dir, 'js'), { recursive: true, force: true });
    },
    async close() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited(child);
      clearTimeout(timer);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * JetStream for a file whose parts run as separate processes: NATS_URL's server (CI), or on a
 * laptop without it a nats-server of the file's own, stopped after the file's tests. Without
 * either, the reason to skip (what to install). Call at the file's top level.
 */
export async function jetStreamForFile(): Promise<{ url?: string; skip: string | false }> {
  requireInCi('NATS_URL');
  if (process.env.NATS_URL) return { url: process.env.NATS_URL, skip: false };
  const missing = natsServerMissing();
  if (missing) return { skip: `NATS_URL is not set and ${missing} (apt-get install nats-server)` };
  const server = await startNatsServer();
  after(() => server.close());
  return { url: server.url, skip: false };
}
