import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { NATS_SERVER_BIN } from './nats-server.js';
import { freePort } from './processes.js';

// Three nats-server processes forming one JetStream cluster (server_name, cluster routes), each
// with its own store, on free loopback ports: a test can kill (kill -9) any of them and start it
// again on the same ports and store.

export interface ClusterNode {
  name: string;
  url: string;
  running(): boolean;
  kill(): Promise<void>;
  restart(): Promise<void>;
}

export interface NatsCluster {
  nodes: ClusterNode[];
  /** Every node's client URL, comma-separated: NATS_URL's seed list. */
  seeds: string;
  output(): string;
  /** The node leading `stream` now, asked of a running node. */
  leaderOf(stream: string): Promise<string | undefined>;
  close(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Until the node answers JetStream calls (the cluster has a meta leader). */
async function waitForJetStream(url: string, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const nc = await connect({ servers: url, timeout: 1000, reconnect: false });
      try {
        await (await nc.jetstreamManager({ timeout: 1000 })).getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch {
      if (Date.now() > deadline) throw new Error(`the NATS cluster never answered JetStream at ${url}:\n${output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`).join(', ');
  let out = '';
  const children = new Map<string, ChildProcess>();
  const nodes: ClusterNode[] = [];
  for (const [i, p] of ports.entries()) {
    const name = `n${i + 1}`;
    const config = join(dir, `${name}.conf`);
    await writeFile(config, [
      `server_name: ${name}`,
      `listen: "127.0.0.1:${p.client}"`,
      `jetstream { store_dir: "${join(dir, name)}" }`,
      `cluster { name: svc, listen: "127.0.0.1:${p.route}", routes: [${routes}] }`,
    ].join('\n') + '\n');
    const url = `nats://127.0.0.1:${p.client}`;
    const launch = () => {
      const child = spawn(NATS_SERVER_BIN, ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.on('data', (d) => (out += `[${name}] ${d}`));
      child.stderr!.on('data', (d) => (out += `[${name}] ${d}`));
      children.set(name, child);
    };
    launch();
    const running = () => {
      const c = children.get(name)!;
      return c.exitCode === null && c.signalCode === null;
    };
    nodes.push({
      name, url, running,
      async kill() {
        const c = children.get(name)!;
        c.kill('SIGKILL');
        await exited(c);
      },
      async restart() {
        launch();
        await waitForJetStream(url, () => out);
      },
    });
  }
  await Promise.all(nodes.map((n) => waitForJetStream(n.url, () => out)));
  return {
    nodes,
    seeds: nodes.map((n) => n.url).join(','),
    output: () => out,
    async leaderOf(stream) {
      const nc = await connect({ servers: nodes.filter((n) => n.running()).map((n) => n.url), timeout: 2000 });
      try {
        return (await (await nc.jetstreamManager()).streams.info(stream)).cluster?.leader;
      } catch {
        return undefined;
      } finally {
        await nc.close();
      }
    },
    async close() {
      for (const c of children.values()) c.kill('SIGTERM');
      await Promise.all([...children.values()].map((c) => {
        const timer = setTimeout(() => c.kill('SIGKILL'), 5000);
        return exited(c).finally(() => clearTimeout(timer));
      }));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
