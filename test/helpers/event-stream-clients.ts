// Clients of the gateway's event stream (GET /v1/test/events/stream) for whole-system tests: a raw
// stream on its own connection, `svc listen` as a child process, and the local webhook receiver it
// forwards to, which verifies every signature with stripe-node's constructEvent.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { get as httpGet, type IncomingMessage } from 'node:http';
import Stripe from 'stripe';
import { projectPath } from '../../services/platform/paths.js';
import { startDeadline } from './start-deadline.js';
import { serveLoopback } from './stand-in-server.js';

const stripe = new Stripe('sk_test_x');

interface Received {
  id: string;
  type: string;
  object: any;
  verified: boolean;
}

/** A local webhook receiver: keeps every event, verified with the listener's session secret. */
export async function startReceiver() {
  const events: Received[] = [];
  let secret = '';
  const server = await serveLoopback((req, res, raw) => {
    let verified = true;
    try {
      stripe.webhooks.constructEvent(raw, req.headers['svc-signature'] as string, secret);
    } catch {
      verified = false;
    }
    const body = JSON.parse(raw);
    assert.equal(req.headers['svc-event-id'], body.id);
    events.push({ id: body.id, type: body.type, object: body.data.object, verified });
    res.writeHead(verified ? 200 : 400).end();
  }, (err) => {
    // The assertion above fails the run, as it would outside the server, rather than answering 500.
    throw err;
  });
  return {
    events,
    url: `${server.baseUrl}/hooks`,
    useSecret: (s: string) => (secret = s),
    close: server.close,
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** `svc listen` as its own process; resolves once it says it is ready, with the secret it printed. */
export async function startListener(env: NodeJS.ProcessEnv, args: string[]) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [projectPath('bin', 'svc.js'), 'listen', ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = once(child, 'exit');
  // Its start-up is a Node process loading the CLI: on a starved machine it waits for a CPU (start-deadline.ts).
  const deadline = startDeadline(child.pid, 20_000);
  while (!/^(Ready|\{"kind":"ready"\})/m.test(stdout) && child.exitCode === null) {
    if (deadline.passed()) throw new Error(`svc listen never said it was ready (${deadline.describe()}):\n${stdout}${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(child.exitCode, null, `svc listen exited: ${stderr}`);
  return {
    secret: /whsec_[\w-]+/.exec(stdout)![0],
    output: () => stdout,
    errors: () => stderr,
    /** Its exit code once it exits by itself (a revoked key ends it). */
    exited: exited.then(([code]) => code as number | null),
    async stop() {
      child.kill('SIGINT');
      const [code] = await exited;
      return code as number;
    },
  };
}

/** A raw stream on its own connection (no pool), so closing it closes the socket. */
export async function openStream(baseUrl: string, key: string, lastEventId?: string) {
  const req = httpGet(`${baseUrl}/v1/test/events/stream`, {
    agent: false, headers: { authorization: `Bearer ${key}`, ...(lastEventId && { 'last-event-id': lastEventId }) },
  });
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let text = '';
  res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('error', () => undefined);
  return { status: res.statusCode, headers: res.headers, response: res, text: () => text, close: () => req.destroy() };
}

