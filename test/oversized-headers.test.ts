import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { parseRawResponse, type RawResponse } from './helpers/raw-http.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// A request whose head is over the limits (16 KiB for the request line and headers, 100 header
// fields) is answered `431 headers_too_large` in the contract's envelope. A client that sends its
// whole request before reading (curl, most libraries) is still sending its 70 KB header when the
// gateway answers: the gateway must read the rest instead of closing, or the kernel answers
// the rest with a reset and the client gets "connection reset by peer" instead of the 431.

let stack: TestStack;
let key: string;
let port: number;

before(async () => {
  stack = await startTestStack();
  key = (await stack.newMerchantKey()).secret;
  port = Number(new URL(stack.baseUrl).port);
});
after(() => stack?.close());

interface Exchange {
  response: RawResponse;
  /** The socket error the client met while sending or reading (EPIPE, ECONNRESET), if any. */
  error?: string;
}

/**
 * Sends `head` then the body in 4 KiB pieces a few milliseconds apart, as a client on a real network
 * does, going on sending after the server's answer and FIN (as curl does), then reads until it closes.
 */
async function sendLikeANetworkClient(headText: string, body = ''): Promise<Exchange> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const chunks: Buffer[] = [];
  let error: string | undefined;
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code));
  // It closes its side once it has sent everything and the server has closed its own.
  let sent = false;
  let serverDone = false;
  socket.on('end', () => {
    serverDone = true;
    if (sent) socket.end();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const bytes = Buffer.from(headText + body, 'latin1');
  for (let at = 0; at < bytes.length && !error; at += 4096) {
    socket.write(bytes.subarray(at, at + 4096));
    await new Promise((r) => setTimeout(r, 5));
  }
  sent = true;
  if (serverDone && !error) socket.end();
  await closed;
  return { response: parseRawResponse(Buffer.concat(chunks)), error };
}

function requestHead(method: string, target: string, headers: Array<[string, string]>, bodyLength?: number): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'host: 127.0.0.1', `authorization: Bearer ${key}`, 'connection: close'];
  if (bodyLength !== undefined) lines.push('content-type: application/json', `content-length: ${bodyLength}`);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

async function paymentsStored(): Promise<number> {
  return Number((await stack.query('SELECT count(*) AS n FROM payments.payments')).rows[0].n);
}

function assertRefused(exchange: Exchange, message: RegExp): void {
  const { response } = exchange;
  assert.equal(exchange.error, undefined, 'the client finished sending and reading without a reset');
  assert.equal(response.status, 431, response.text);
  assert.equal(response.body?.error?.type, 'invalid_request_error');
  assert.equal(response.body?.error?.code, 'headers_too_large');
  assert.match(response.body?.error?.message, message);
  assert.match(response.headers['x-request-id'] ?? '', /^req_/);
  assert.equal(response.body?.request_id, response.headers['x-request-id']);
}

const PAYMENT = JSON.stringify({ amount: 1000, currency: 'EUR', payment_method: 'card' });

for (const size of [17 * 1024, 70 * 1024]) {
  test(`a ${Math.round(size / 1024)} KB header: 431 headers_too_large in the envelope, not a reset, and no payment`, async () => {
    const before = await paymentsStored();
    const exchange = await sendLikeANetworkClient(
      requestHead('POST', '/v1/payments', [['x-big', 'a'.repeat(size)]], PAYMENT.length), PAYMENT,
    );
    assertRefused(exchange, /larger than 16 KiB/);
    assert.equal(await paymentsStored(), before, 'nothing was created');
  });
}

test('more than 100 header fields, though small: 431, instead of Node keeping some and dropping the rest', async () => {
  const before = await paymentsStored();
  const fields = Array.from({ length: 101 }, (_, i): [string, string] => [`x-h${i}`, 'v']);
  const exchange = await sendLikeANetworkClient(requestHead('POST', '/v1/payments', fields, PAYMENT.length), PAYMENT);
  assertRefused(exchange, /more than 100 header fields/);
  assert.equal(await paymentsStored(), before, 'nothing was created');
});

test('2000 short headers (names and values under Node\'s count, 23 KB as sent): 431', async () => {
  const fields = Array.from({ length: 2000 }, (_, i): [string, string] => [`x-h${i}`, 'v']);
  assertRefused(await sendLikeANetworkClient(requestHead('GET', '/v1/me', fields)), /more than 100 header fields/);
});

test('a head of 16 KiB as sent, of few fields, counts its separators: 431; just under it passes', async () => {
  const base = requestHead('GET', '/v1/me', [['x-pad', '']]).length;
  const over = requestHead('GET', '/v1/me', [['x-pad', 'a'.repeat(16 * 1024 - base + 1)]]);
  assert.equal(over.length, 16 * 1024 + 1);
  assertRefused(await sendLikeANetworkClient(over), /larger than 16 KiB/);
  const fits = await sendLikeANetworkClient(requestHead('GET', '/v1/me', [['x-pad', 'a'.repeat(16 * 1024 - base - 100)]]));
  assert.equal(fits.response.status, 200, `${fits.error} ${fits.response.text}`);
});

test('after all of that the gateway still serves', async () => {
  const health = await fetch(`${stack.baseUrl}/healthz`);
  assert.equal(health.status, 200);
  const created = await request(stack.baseUrl, 'POST', '/v1/payments', { key, body: JSON.parse(PAYMENT) });
  assert.equal(created.status, 201, JSON.stringify(created.body));
});
