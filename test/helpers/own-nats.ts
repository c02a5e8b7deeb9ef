import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort } from './processes.js';

// A nats-server of the test's own with a configuration file, for what the shared NATS_URL cannot
// show: a small max_payload (an event the bus refuses), or a server that is not there yet.

const BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export interface OwnNats {
  url: string;
  port: number;
  output(): string;
  close(): Promise<void>;
}

export interface OwnNatsOptions {
  /** Default: a free one. */
  port?: number;
  /** The server's max_payload in bytes; default the server's own (1 MiB). */
  maxPayload?: number;
}

async function waitForJetStream(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nats-server exited:\n${output()}`);
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

/** A port nothing listens on yet, for a server started later with { port }. */
export const reservePort = freePort;

export async function startOwnNats(opts: OwnNatsOptions = {}): Promise<OwnNats> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-own-nats-'));
  const port = opts.port ?? (await freePort());
  const config = [
    `listen: "127.0.0.1:${port}"`,
    ...(opts.maxPayload ? [`max_payload: ${opts.maxPayload}`] : []),
    `jetstream { store_dir: "${join(dir, 'js')}" }`,
  ].join('\n');
  await writeFile(join(dir, 'nats.conf'), `${config}\n`);
  const child = spawn(BIN, ['-c', join(dir, 'nats.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `nats://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForJetStream(url, child, () => out);
  } catch (err) {
    await close();
    throw err;
  }
  return { url, port, output: () => out, close };
}
