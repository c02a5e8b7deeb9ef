import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { startAllInOne } from './helpers/all-in-one-process.js';
import { startGatewayProcesses } from './helpers/gateways.js';
import { openSocket, parseRawResponse, readAll, type RawResponse } from './helpers/raw-http.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

// The gateway as its own process, against clients that do not finish what they started: SIGTERM
// while one client holds a half-sent body must not keep the process alive past
// SHUTDOWN_TIMEOUT_MS (neither for the gateway's process nor for `npm start`'s, which runs every
// part), a request arriving during shutdown is answered 503 in the envelope, and a client too slow
// to send its headers or body is answered 408 in the envelope.

const SHUTDOWN_TIMEOUT_MS = 2_000;
// The in-flight payment must be answered within the shutdown window: on a starved machine (two
// cores, load 30) a payment's round through the parts took over 2 s, so that test allows 5.
const DRAIN_TIMEOUT_MS = 5_000;
const MARGIN_MS = 1_000;

let stack: TestStack;
let key: string;

before(async () => {
  stack = await startTestStack();
  key = (await stack.newMerchantKey('test')).secret;
});
after(() => stack?.close());

const portOf = (baseUrl: string) => Number(new URL(baseUrl).port);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The answers read from one keep-alive connection, each cut at its content-length. */
function splitResponses(raw: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const length = Number(/content-length:\s*(\d+)/i.exec(rest.subarray(0, end).toString('latin1'))?.[1] ?? 0);
    out.push(parseRawResponse(rest.subarray(0, end + 4 + length)));
    rest = rest.subarray(end + 4 + length);
  }
  return out;
}

function assertEnvelope(res: RawResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body?.error?.code, code, res.text);
  assert.match(res.body.request_id, /^req_/);
  assert.equal(res.headers['x-request-id'], res.body.request_id);
}

test('SIGTERM while a client holds a half-sent body: the gateway exits within SHUTDOWN_TIMEOUT_MS; a late request is 503', async () => {
  const [gateway] = await startGatewayProcesses(stack, 1, {
    SHUTDOWN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS), HTTP_REQUEST_TIMEOUT_MS: '600000',
  });
  const port = portOf(gateway.baseUrl);
  const body = JSON.stringify({ amount: 1000, currency: 'EUR', payment_method: 'card' });
  const post = (length: number) =>
    `POST /v1/payments HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;

  // One client sends headers and half a body, then nothing, for as long as it likes.
  const holder = await openSocket(port);
  const held = readAll(holder, 60_000);
  holder.write(post(body.length + 100) + body.slice(0, 10));
  // Another is midway through a request on a keep-alive connection when SIGTERM comes.
  const busy = await openSocket(port);
  const answers = readAll(busy, 60_000);
  busy.write(post(body.length) + body.slice(0, 10));
  await sleep(300);

  const exited = once(gateway.process.child, 'exit');
  const signalledAt = Date.now();
  gateway.process.child.kill('SIGTERM');
  await sleep(300);
  // The busy client finishes its body and sends one more request on the same connection.
  busy.write(`${body.slice(10)}GET /v1/me HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\n\r\n`);

  const [code] = await exited;
  const elapsed = Date.now() - signalledAt;
  assert.ok(elapsed <= DRAIN_TIMEOUT_MS + MARGIN_MS, `exited ${elapsed} ms after SIGTERM\n${gateway.process.output()}`);
  assert.equal(code, 0, gateway.process.output());

  const [first, late] = splitResponses(await answers);
  assert.equal(first?.status, 201, first?.text);
  assertEnvelope(late, 503, 'service_unavailable');
  assert.equal(late.headers.connection, 'close');
  await held; // closed by the gateway, not left hanging
  assert.ok(holder.destroyed || holder.readableEnded);
});

test("SIGTERM to npm start's process while one client holds a connection it never used and another a half-sent body: it exits within SHUTDOWN_TIMEOUT_MS", async () => {
  const aio = await startAllInOne(process.env.NATS_URL, {
    name: 'all-in-one', entry: 'all-in-one/main.js',
    env: { SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS), HTTP_REQUEST_TIMEOUT_MS: '600000' },
  });
  try {
    const port = portOf(aio.baseUrl);
    const idle = await openSocket(port);
    const idleClosed = readAll(idle, 60_000);
    const holder = await openSocket(port);
    const held = readAll(holder, 60_000);
    holder.write(`POST /v1/payments HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${aio.secret}\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"amount"`);
    await sleep(300);

    const exited = once(aio.process.child, 'exit');
    const signalledAt = Date.now();
    aio.process.child.kill('SIGTERM');
    const [code] = await exited;
    const elapsed = Date.now() - signalledAt;
    assert.ok(elapsed <= SHUTDOWN_TIMEOUT_MS + MARGIN_MS, `exited ${elapsed} ms after SIGTERM\n${aio.process.output()}`);
    assert.equal(code, 0, aio.process.output());
    await Promise.all([idleClosed, held]); // both cut by the process, not left hanging
  } finally {
    await aio.close();
  }
});

test('a client too slow with its headers or its body is answered 408 in the envelope', async () => {
  const [gateway] = await startGatewayProcesses(stack, 1, { HTTP_REQUEST_TIMEOUT_MS: '1000' });
  const port = portOf(gateway.baseUrl);
  try {
    const slowBody = await openSocket(port);
    const bodyAnswer = readAll(slowBody, 10_000);
    slowBody.write(`POST /v1/payments HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"amount"`);
    const slowHeaders = await openSocket(port);
    const headersAnswer = readAll(slowHeaders, 10_000);
    slowHeaders.write(`GET /v1/me HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\n`);
    const startedAt = Date.now();
    for (const raw of await Promise.all([bodyAnswer, headersAnswer])) assertEnvelope(parseRawResponse(raw), 408, 'request_timeout');
    assert.ok(Date.now() - startedAt < 5_000, 'answered within a few seconds of the timeout');
  } finally {
    await gateway.process.stop();
  }
});
