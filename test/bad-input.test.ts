import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { createLogger } from '../services/platform/logger.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import {
  MAX_BODY_BYTES, MAX_JSON_DEPTH, MAX_PROVIDER_NOTIFICATION_BYTES, METADATA_KEY_MAX_LENGTH, METADATA_MAX_KEYS,
  METADATA_VALUE_MAX_LENGTH,
} from '../services/contract/index.js';
import { PROVIDERS } from '../services/connectors/providers.js';
import { eventually } from './helpers/eventually.js';
import { captureLogs } from './helpers/log-sink.js';
import { head, rawRequest, type RawResponse } from './helpers/raw-http.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Every class of bad input the gateway can meet, table-driven, through the real HTTP gateway on
// loopback: body text, JSON shape and size, content types, query strings, path ids, header bytes,
// card numbers in every form and bank accounts in payouts. Each is refused with the right 4xx in
// the contract's envelope (x-request-id equal to request_id, never a 500) and leaves nothing in
// the database. Valid inputs close to the lines must still pass.

const { stream: logSink, lines: logLines } = captureLogs();

let stack: TestStack;
let key: string;
let port: number;
let paymentId: string;

const COUNTED = [
  'payments.payments', 'payments.refunds', 'payments.payment_methods', 'payments.outbox', 'payouts.payouts',
  'payouts.outbox', 'webhooks.events', 'gateway.idempotency_keys', 'payments.provider_notifications',
];

async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of COUNTED) out[table] = Number((await stack.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  return out;
}

type Answer = { status: number; header: (name: string) => string | undefined; body: any };

function fromFetch(res: { status: number; headers: Headers; body: any }): Answer {
  return { status: res.status, header: (n) => res.headers.get(n) ?? undefined, body: res.body };
}
function fromRaw(res: RawResponse): Answer {
  return { status: res.status, header: (n) => res.headers[n], body: res.body };
}

/** A raw request with the test key; `body` is sent as the exact bytes given. */
async function raw(method: string, target: string, opts: { body?: Buffer | string; headers?: Record<string, string> } = {}) {
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  const headers = { authorization: `Bearer ${key}`, ...(body && { 'content-type': 'application/json' }), ...opts.headers };
  const bytes = Buffer.concat([Buffer.from(head(method, target, headers, body?.length), 'latin1'), body ?? Buffer.alloc(0)]);
  return fromRaw(await rawRequest(port, bytes));
}

const json = async (method: string, path: string, body?: unknown) => fromFetch(await request(stack.baseUrl, method, path, { key, body }));
const payment = (extra: Record<string, unknown> = {}) => ({ amount: 1000, currency: 'EUR', payment_method: 'card', ...extra });
const payout = (extra: Record<string, unknown> = {}, destination: Record<string, unknown> = {}) => ({
  amount: 100, currency: 'EUR', destination: { type: 'bank_account', display: '•••• 1234', ...destination }, ...extra,
});
const postPayment = (extra: Record<string, unknown>) => json('POST', '/v1/payments', payment(extra));
const postPayout = (extra: Record<string, unknown>, destination?: Record<string, unknown>) => json('POST', '/v1/payouts', payout(extra, destination));
const nested = (depth: number): unknown => (depth === 0 ? 'x' : { a: nested(depth - 1) });
const keys = (n: number, value = 'v') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));

interface Case {
  name: string;
  send: () => Promise<Answer>;
  status: number;
  code: string;
  param?: string;
}

function assertEnvelope(c: Case, res: Answer): void {
  const what = `${c.name}: ${JSON.stringify(res.body)}`;
  assert.equal(res.status, c.status, what);
  assert.equal(res.body?.error?.code, c.code, what);
  assert.equal(res.body.error.param, c.param, what);
  assert.equal(typeof res.body.error.type, 'string', what);
  assert.equal(typeof res.body.error.message, 'string', what);
  assert.match(res.body.request_id, /^req_/, what);
  assert.equal(res.header('x-request-id'), res.body.request_id, what);
}

const CARD = '4242424242424242';
const FULL_WIDTH_CARD = '４２４２ ４２４２ ４２４２ ４２４２';
const ARABIC_INDIC_CARD = '٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢';
const IBAN = 'DE89 3704 0044 0532 0130 00';

const BODY_TEXT: Case[] = [
  { name: 'NUL in a body string', send: () => postPayment({ description: 'a\u0000b' }), status: 422, code: 'validation_error', param: 'description' },
  { name: 'NUL in a metadata value', send: () => postPayment({ metadata: { note: '\u0000' } }), status: 422, code: 'validation_error', param: 'metadata.note' },
  { name: 'NUL in a metadata key', send: () => postPayment({ metadata: { 'a\u0000': 'x' } }), status: 422, code: 'validation_error', param: 'metadata' },
  { name: 'NUL in a nested string', send: () => postPayment({ customer: { name: 'Ada\u0000' } }), status: 422, code: 'validation_error', param: 'customer.name' },
  { name: 'lone high surrogate (escaped)', send: () => raw('POST', '/v1/payments', { body: '{"amount":1000,"currency":"EUR","payment_method":"card","description":"x\\ud800"}' }), status: 422, code: 'validation_error', param: 'description' },
  { name: 'lone low surrogate in metadata', send: () => raw('POST', '/v1/payments', { body: '{"amount":1000,"currency":"EUR","payment_method":"card","metadata":{"n":"\\udc00"}}' }), status: 422, code: 'validation_error', param: 'metadata.n' },
  { name: 'invalid UTF-8 byte 0xFF', send: () => raw('POST', '/v1/payments', { body: Buffer.concat([Buffer.from('{"amount":1000,"currency":"EUR","payment_method":"card","description":"a'), Buffer.from([0xff]), Buffer.from('"}')]) }), status: 422, code: 'validation_error', param: 'description' },
  { name: 'overlong UTF-8 (C0 AF)', send: () => raw('POST', '/v1/payments', { body: Buffer.concat([Buffer.from('{"amount":1000,"currency":"EUR","payment_method":"card","reference":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]) }), status: 422, code: 'validation_error', param: 'reference' },
  { name: 'a surrogate encoded as UTF-8 (ED A0 80)', send: () => raw('POST', '/v1/payments', { body: Buffer.concat([Buffer.from('{"amount":1000,"currency":"EUR","payment_method":"card","metadata":{"n":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')]) }), status: 422, code: 'validation_error', param: 'metadata.n' },
  { name: 'truncated UTF-8 sequence', send: () => raw('POST', '/v1/payments', { body: Buffer.concat([Buffer.from('{"amount":1000,"currency":"EUR","payment_method":"card","description":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}')]) }), status: 422, code: 'validation_error', param: 'description' },
];

const BODY_SHAPE: Case[] = [
  { name: 'metadata nested 49 levels', send: () => postPayment({ metadata: nested(49) }), status: 400, code: 'json_too_deep' },
  { name: 'arrays nested 9 levels', send: () => postPayment({ metadata: { a: [[[[[[[[['x']]]]]]]]] } }), status: 400, code: 'json_too_deep' },
  { name: 'metadata nested 2 levels (values are strings)', send: () => postPayment({ metadata: { a: { b: 'c' } } }), status: 422, code: 'validation_error', param: 'metadata.a' },
  { name: 'metadata value a number', send: () => postPayment({ metadata: { a: 1 } }), status: 422, code: 'validation_error', param: 'metadata.a' },
  { name: 'metadata 51 keys', send: () => postPayment({ metadata: keys(51) }), status: 422, code: 'validation_error', param: 'metadata' },
  { name: 'metadata key 41 characters', send: () => postPayment({ metadata: { ['k'.repeat(41)]: 'v' } }), status: 422, code: 'validation_error', param: 'metadata' },
  { name: 'metadata value 501 characters', send: () => postPayment({ metadata: { k: 'v'.repeat(501) } }), status: 422, code: 'validation_error', param: 'metadata.k' },
  { name: 'refund metadata 51 keys', send: () => json('POST', `/v1/payments/${paymentId}/refund`, { amount: 1, metadata: keys(51) }), status: 422, code: 'validation_error', param: 'metadata' },
  { name: 'payout metadata value 501 characters', send: () => postPayout({ metadata: { k: 'v'.repeat(501) } }), status: 422, code: 'validation_error', param: 'metadata.k' },
  { name: 'body over 64 KiB', send: () => postPayment({ metadata: keys(50, 'v'.repeat(500)), customer: { name: 'x'.repeat(45_000) } }), status: 413, code: 'body_too_large' },
  { name: 'body over 64 KiB, declared by content-length only', send: () => raw('POST', '/v1/payments', { body: `{"description":"${'x'.repeat(70_000)}"}` }), status: 413, code: 'body_too_large' },
  { name: 'malformed JSON', send: () => raw('POST', '/v1/payments', { body: '{"amount": 10,' }), status: 400, code: 'invalid_json' },
  { name: 'empty JSON body', send: () => raw('POST', '/v1/payments', { body: '' }), status: 400, code: 'invalid_json' },
  { name: '__proto__ key', send: () => raw('POST', '/v1/payments', { body: '{"amount":1000,"__proto__":{"x":1}}' }), status: 400, code: 'invalid_json' },
  { name: 'amount named twice', send: () => raw('POST', '/v1/payments', { body: '{"amount":1000,"currency":"EUR","payment_method":"card","amount":200000}' }), status: 400, code: 'invalid_json', param: 'amount' },
  { name: 'refund amount named twice, once escaped', send: () => raw('POST', `/v1/payments/${paymentId}/refund`, { body: '{"amount":1,"\\u0061mount":2}' }), status: 400, code: 'invalid_json', param: 'amount' },
  { name: 'a UTF-8 byte order mark', send: () => raw('POST', '/v1/payments', { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(payment()))]) }), status: 400, code: 'invalid_json' },
];

const CONTENT_TYPES: Case[] = [
  ...['application/json; charset=utf-16', 'application/json; charset=ISO-8859-1', 'application/json;charset="utf-32"'].map((ct) => ({
    name: `content-type ${ct}`, send: () => raw('POST', '/v1/payments', { body: JSON.stringify(payment()), headers: { 'content-type': ct } }),
    status: 415, code: 'unsupported_media_type',
  })),
  ...['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x'].map((ct) => ({
    name: `content-type ${ct}`, send: () => raw('POST', '/v1/payments', { body: JSON.stringify(payment()), headers: { 'content-type': ct } }),
    status: 415, code: 'unsupported_media_type',
  })),
  {
    name: 'a body without content-type',
    send: async () => fromRaw(await rawRequest(port, head('POST', '/v1/payments', { authorization: `Bearer ${key}` }, 2) + '{}')),
    status: 415, code: 'unsupported_media_type',
  },
];

const QUERY: Case[] = [
  ...['1e2', '0x10', '%205', '5%20', '%2B5', '5.0', '1_0', ''].map((limit) => ({
    name: `limit=${limit}`, send: () => raw('GET', `/v1/payments?limit=${limit}`), status: 422, code: 'validation_error', param: 'limit',
  })),
  { name: 'limit given twice', send: () => raw('GET', '/v1/payouts?limit=5&limit=6'), status: 422, code: 'validation_error', param: 'limit' },
  { name: 'NUL in a query value', send: () => raw('GET', '/v1/payments?reference=a%00b'), status: 422, code: 'validation_error', param: 'reference' },
  { name: 'NUL in status', send: () => raw('GET', '/v1/payouts?status=%00'), status: 422, code: 'validation_error', param: 'status' },
  { name: 'invalid UTF-8 in a query value', send: () => raw('GET', '/v1/payments?search=%FF'), status: 422, code: 'validation_error', param: 'search' },
  { name: 'a UTF-8 encoded surrogate in a query value', send: () => raw('GET', '/v1/payments?search=%ED%A0%80'), status: 422, code: 'validation_error', param: 'search' },
  { name: 'a broken escape in a query value', send: () => raw('GET', '/v1/transactions?status=%E0%A4%A'), status: 422, code: 'validation_error', param: 'status' },
  { name: 'invalid UTF-8 in a query name', send: () => raw('GET', '/v1/payments?%FF=1'), status: 422, code: 'validation_error' },
  { name: 'a URL over 8 KiB', send: () => raw('GET', `/v1/payments?search=${'a'.repeat(9000)}`), status: 414, code: 'url_too_long' },
];

const PATH: Case[] = [
  { name: 'NUL in a path id', send: () => raw('GET', '/v1/payments/pay_%00x'), status: 422, code: 'validation_error', param: 'id' },
  { name: 'NUL in a payout id', send: () => raw('POST', '/v1/payouts/po_%00/cancel'), status: 422, code: 'validation_error', param: 'id' },
  { name: 'invalid UTF-8 in a path id', send: () => raw('GET', '/v1/refunds/%FF'), status: 400, code: 'malformed_request' },
  { name: 'a broken escape in a path id', send: () => raw('GET', '/v1/payments/%E0%A4%A'), status: 400, code: 'malformed_request' },
  { name: 'a path id of 256 characters', send: () => raw('GET', `/v1/payments/pay_${'x'.repeat(252)}`), status: 414, code: 'url_too_long' },
  { name: 'a path id of 1000 characters', send: () => raw('GET', `/v1/settlements/${'x'.repeat(1000)}`), status: 414, code: 'url_too_long' },
];

// Every shipped provider that posts notifications: its route refuses what no connector should read.
const PROVIDER_WEBHOOKS: Case[] = PROVIDERS.filter((p) => p.capabilities.notifications).flatMap((p): Case[] => {
  const target = `/providers/${p.code}/webhooks/pac_doesnotexist`;
  return [
    { name: `${p.code}: an unknown account`, send: () => raw('POST', target, { body: '{"id":"evt_1"}' }), status: 404, code: 'resource_not_found', param: 'provider_account_id' },
    // Just inside the gateway's limit: the part must read it too (it once refused over 128 KiB, a 500).
    { name: `${p.code}: a body just inside the notification limit reaches the part`, send: () => raw('POST', target, { body: 'x'.repeat(MAX_PROVIDER_NOTIFICATION_BYTES - 1) }), status: 404, code: 'resource_not_found', param: 'provider_account_id' },
    { name: `${p.code}: a body over the notification limit`, send: () => raw('POST', target, { body: 'x'.repeat(MAX_PROVIDER_NOTIFICATION_BYTES + 1) }), status: 413, code: 'body_too_large' },
  ];
});

const HEADERS: Case[] = [
  { name: '0x7f in Authorization', send: async () => fromRaw(await rawRequest(port, Buffer.from(`GET /v1/me HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\x7f\r\nconnection: close\r\n\r\n`, 'latin1'))), status: 400, code: 'malformed_request' },
  { name: 'NUL in a header value', send: async () => fromRaw(await rawRequest(port, Buffer.from('GET /v1/me HTTP/1.1\r\nhost: x\r\nx-a: a\x00b\r\nconnection: close\r\n\r\n', 'latin1'))), status: 400, code: 'malformed_request' },
  { name: 'a space in a header name', send: async () => fromRaw(await rawRequest(port, 'GET /v1/me HTTP/1.1\r\nhost: x\r\nbad name: 1\r\nconnection: close\r\n\r\n')), status: 400, code: 'malformed_request' },
  { name: 'a control byte in the URL', send: async () => fromRaw(await rawRequest(port, Buffer.from('GET /v1/me\x01 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n', 'latin1'))), status: 400, code: 'malformed_request' },
  { name: 'header section over 16 KiB', send: () => raw('GET', '/v1/me', { headers: { 'x-big': 'a'.repeat(20_000) } }), status: 431, code: 'headers_too_large' },
  { name: 'not HTTP at all', send: async () => fromRaw(await rawRequest(port, 'HELLO\r\n\r\n')), status: 400, code: 'malformed_request' },
  { name: 'both content-length and chunked', send: async () => fromRaw(await rawRequest(port, `POST /v1/payments HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n0\r\n\r\n`)), status: 400, code: 'malformed_request' },
];

const cardCases = (forms: Array<[string, string]>): Case[] => forms.map(([name, text]) => ({
  name: `card number: ${name}`, send: () => postPayment({ description: text }), status: 422, code: 'card_data_not_accepted', param: 'description',
}));

const CARDS: Case[] = [
  ...cardCases([
    ['in a sentence with expiry and CVV', 'Card 4242 4242 4242 4242 exp 12/29 cvv 123'], ['after a colon', `card:${CARD}`],
    ['dots', '4242.4242.4242.4242'], ['slashes', '4242/4242/4242/4242'], ['underscores', '4242_4242_4242_4242'],
    ['tabs', '4242\t4242\t4242\t4242'], ['newlines', '4242\n4242\r\n4242\n4242'], ['no-break spaces', '4242\u00a04242\u00a04242\u00a04242'],
    ['thin and ideographic spaces', '4242\u20094242\u30004242\u202f4242'], ['zero-width spaces', '4242\u200b4242\u200b4242\u200b4242'],
    ['en dashes', '4242–4242–4242–4242'], ['full-width digits', FULL_WIDTH_CARD], ['Arabic-Indic digits', ARABIC_INDIC_CARD],
    ['Amex 4-6-5', '3782 822463 10005'], ['one digit at a time', '4 2 4 2 4 2 4 2 4 2 4 2 4 2 4 2'],
    ['glued to letters', `x${CARD}y`],
  ]),
  { name: 'card number as a metadata key', send: () => postPayment({ metadata: { [CARD]: 'x' } }), status: 422, code: 'card_data_not_accepted', param: 'metadata' },
  { name: 'card number in a metadata value', send: () => postPayment({ metadata: { note: FULL_WIDTH_CARD } }), status: 422, code: 'card_data_not_accepted', param: 'metadata.note' },
  { name: 'card number in a nested field', send: () => postPayment({ customer: { name: `Ada ${CARD}` } }), status: 422, code: 'card_data_not_accepted', param: 'customer.name' },
  { name: 'card number in a payment method token', send: () => postPayment({ payment_method: { type: 'card', token: CARD } }), status: 422, code: 'card_data_not_accepted', param: 'payment_method.token' },
  { name: 'card number in an array', send: () => postPayment({ extra: ['a', CARD] }), status: 422, code: 'card_data_not_accepted', param: 'extra.1' },
  ...['credit_card_number', 'card-number', 'CardNumber', 'CVV', 'security_code', 'cardNo'].map((name) => ({
    name: `field named ${name}`, send: () => postPayment({ metadata: { [name]: 'x' } }), status: 422, code: 'card_data_not_accepted', param: `metadata.${name}`,
  })),
  { name: 'top-level card_number', send: () => postPayment({ card_number: 'x' }), status: 422, code: 'card_data_not_accepted', param: 'card_number' },
  { name: 'card number in a refund', send: () => json('POST', `/v1/payments/${paymentId}/refund`, { reason: `to card ${CARD}` }), status: 422, code: 'card_data_not_accepted', param: 'reason' },
  { name: 'card number in a payout description', send: () => postPayout({ description: FULL_WIDTH_CARD }), status: 422, code: 'card_data_not_accepted', param: 'description' },
  { name: 'card number in a payment method display', send: () => json('POST', '/v1/payment-methods', { type: 'card', provider_token: 'tok_x', display: { number: CARD } }), status: 422, code: 'card_data_not_accepted', param: 'display.number' },
  { name: 'card number in a query string', send: () => raw('GET', `/v1/payments?search=${CARD}`), status: 422, code: 'card_data_not_accepted', param: 'search' },
  { name: 'full-width card number in a query string', send: () => raw('GET', `/v1/payments?reference=${encodeURIComponent(FULL_WIDTH_CARD)}`), status: 422, code: 'card_data_not_accepted', param: 'reference' },
  { name: 'card number as a path id', send: () => raw('GET', `/v1/payments/${CARD}`), status: 422, code: 'card_data_not_accepted', param: 'id' },
];

const ACCOUNTS: Case[] = [
  { name: 'IBAN in a payout description', send: () => postPayout({ description: `to ${IBAN}` }), status: 422, code: 'validation_error', param: 'description' },
  { name: 'IBAN in a payout reference', send: () => postPayout({ reference: 'GB82WEST12345698765432' }), status: 422, code: 'validation_error', param: 'reference' },
  { name: 'full-width IBAN in payout metadata', send: () => postPayout({ metadata: { note: 'ＧＢ８２ＷＥＳＴ１２３４５６９８７６５４３２' } }), status: 422, code: 'validation_error', param: 'metadata.note' },
  { name: 'IBAN with no-break spaces in payout metadata', send: () => postPayout({ metadata: { note: IBAN.replace(/ /g, '\u00a0') } }), status: 422, code: 'validation_error', param: 'metadata.note' },
  { name: 'IBAN as a payout metadata key', send: () => postPayout({ metadata: { NL91ABNA0417164300: 'x' } }), status: 422, code: 'validation_error', param: 'metadata' },
  { name: 'labelled account number in a payout description', send: () => postPayout({ description: 'Account no. 12345678' }), status: 422, code: 'validation_error', param: 'description' },
  { name: 'IBAN in a destination display', send: () => postPayout({}, { display: IBAN }), status: 422, code: 'validation_error', param: 'destination.display' },
  { name: 'account digits in a holder name', send: () => postPayout({}, { holder_name: 'Ada 1234\u00a05678' }), status: 422, code: 'validation_error', param: 'destination.holder_name' },
];

before(async () => {
  // Movements settle at once, so the merchant has funds and a valid payout can be created.
  stack = await startTestStack({
    logger: createLogger('test', 'info', logSink), env: { SETTLEMENT_CUTOFF_MS: '0', PAYOUT_HOLD_MS: '600000' },
  });
  key = (await stack.newMerchantKey('test')).secret;
  port = Number(new URL(stack.baseUrl).port);
  const created = await json('POST', '/v1/payments', payment({ amount: 50_000 }));
  assert.equal(created.status, 201);
  paymentId = created.body.id;
  await eventually('the ledger to record the payment', async () =>
    ((await request(stack.baseUrl, 'GET', '/v1/transactions', { key })).body.data.length > 0 ? true : undefined));
  await createClient(LedgerService, createPeerTransport(stack.serviceUrls.ledger, stack.internalToken)).runSettlementCycle({});
  // The settlement's event reaches the webhooks part's store on its own time; counted before it
  // arrives, it would look like something a refused request stored. Internal events
  // never reach webhooks, so they are not counted as emitted.
  await eventually('every event of the setup to be stored', async () => {
    const { rows } = await stack.query(
      `SELECT (SELECT count(*) FROM payments.outbox WHERE type NOT LIKE 'internal.%') + (SELECT count(*) FROM ledger.outbox) AS emitted,
              (SELECT count(*) FROM webhooks.events) AS stored`,
    );
    return Number(rows[0].emitted) > 0 && rows[0].emitted === rows[0].stored ? true : undefined;
  });
});
after(async () => {
  await stack?.close();
});

describe('bad input is refused in the envelope and stores nothing', () => {
  const tables: Array<[string, Case[]]> = [
    ['body text', BODY_TEXT], ['body shape and size', BODY_SHAPE], ['content types', CONTENT_TYPES], ['query strings', QUERY],
    ['path ids', PATH], ['provider webhooks', PROVIDER_WEBHOOKS], ['header bytes and sizes', HEADERS], ['card numbers', CARDS], ['bank accounts in payouts', ACCOUNTS],
  ];
  for (const [name, cases] of tables) {
    test(name, async () => {
      const before = await counts();
      for (const c of cases) assertEnvelope(c, await c.send());
      assert.deepEqual(await counts(), before);
    });
  }

  test('a URL holding a card number is not written to the request log', () => {
    const logs = logLines.join('');
    assert.match(logs, /incoming request/);
    for (const form of [CARD, encodeURIComponent(FULL_WIDTH_CARD)]) assert.ok(!logs.includes(form), form);
  });
});

  test('a refused request with an Idempotency-Key leaves no idempotency record', async () => {
    const before = await counts();
    const keyed = (body: unknown) => request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body, headers: { 'idempotency-key': `bad-${Math.random()}` },
    }).then(fromFetch);
    const cases: Case[] = [
      { name: 'keyed NUL', send: () => keyed(payment({ description: '\u0000' })), status: 422, code: 'validation_error', param: 'description' },
      { name: 'keyed card', send: () => keyed(payment({ description: FULL_WIDTH_CARD })), status: 422, code: 'card_data_not_accepted', param: 'description' },
      { name: 'keyed depth', send: () => keyed(payment({ metadata: nested(20) })), status: 400, code: 'json_too_deep' },
    ];
    for (const c of cases) assertEnvelope(c, await c.send());
    assert.deepEqual(await counts(), before);
  });

test('the limits are published in the OpenAPI document', async () => {
  const doc: any = await (await fetch(`${stack.baseUrl}/openapi.json`)).json();
  const metadata = doc.components.schemas.Metadata;
  assert.equal(metadata.maxProperties, METADATA_MAX_KEYS);
  assert.equal(metadata.propertyNames.maxLength, METADATA_KEY_MAX_LENGTH);
  assert.equal(metadata.additionalProperties.maxLength, METADATA_VALUE_MAX_LENGTH);
  for (const name of ['CreatePaymentRequest', 'CreateRefundRequest', 'CreatePayoutRequest']) {
    assert.deepEqual(doc.components.schemas[name].properties.metadata, { $ref: '#/components/schemas/Metadata' }, name);
  }
  assert.deepEqual(doc.info['x-limits'], {
    max_body_bytes: MAX_BODY_BYTES, max_json_depth: MAX_JSON_DEPTH, metadata_max_keys: METADATA_MAX_KEYS,
    metadata_key_max_length: METADATA_KEY_MAX_LENGTH, metadata_value_max_length: METADATA_VALUE_MAX_LENGTH,
  });
  assert.ok(doc.paths['/v1/payments'].post.responses['413']);
  assert.ok(doc.paths['/v1/payments'].post.responses['415']);
});

describe('valid input close to the lines passes', () => {
  test('order and phone numbers, timestamps, the largest metadata, Unicode text and plain integers', async () => {
    const before = await counts();
    const created = [
      await postPayment({ description: 'Order 12345, call +49 170 1234567 or +1 (415) 555-2671', reference: 'order_1234567890123' }),
      await postPayment({ metadata: { ...keys(49, 'v'.repeat(500)), ['k'.repeat(40)]: 'v'.repeat(500) } }),
      await postPayment({ metadata: { ts: '1718000000000', padded: '0000424242424242', at: '2024-01-15 12:30:45' } }),
      await postPayment({ description: 'Müller 株式会社 — ＡＢＣ 😀', customer: { name: 'Zoë Ångström' } }),
      await postPayout({ description: 'May payout', reference: 'INV-2024000123', metadata: { order: '12345678' } }),
    ];
    for (const res of created) assert.equal(res.status, 201, JSON.stringify(res.body));
    const emoji = await raw('POST', '/v1/payments', { body: '{"amount":1000,"currency":"EUR","payment_method":"card","description":"\\ud83d\\ude00"}' });
    assert.equal(emoji.status, 201, 'an escaped surrogate pair is one character');
    assert.equal(emoji.body.description, '😀');
    for (const q of ['limit=10', 'limit=010', 'limit=200']) assert.equal((await raw('GET', `/v1/payments?${q}`)).status, 200, q);
    const after = await counts();
    assert.equal(after['payments.payments'], before['payments.payments'] + 5);
    assert.equal(after['payouts.payouts'], before['payouts.payouts'] + 1);
  });
});
