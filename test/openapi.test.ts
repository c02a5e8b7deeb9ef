import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createClient } from '@connectrpc/connect';
import { createPeerTransport } from '../services/platform/rpc.js';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { ERRORS } from '../services/contract/errors.js';
import { BAD_REQUESTS_OUTSIDE_V1 } from '../services/contract/openapi-errors.js';
import { eventually } from './helpers/eventually.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;

let stack: TestStack;
let doc: any;
let key: string;
let liveKey: string;

before(async () => {
  // Movements settle at once and payouts wait long enough to be cancelled: every operation can succeed.
  stack = await startTestStack({ env: { SETTLEMENT_CUTOFF_MS: '0', PAYOUT_HOLD_MS: '600000' } });
  key = (await stack.newMerchantKey('test')).secret;
  liveKey = (await stack.newMerchantKey('live')).secret;
  const res = await fetch(`${stack.baseUrl}/openapi.json`);
  assert.equal(res.status, 200, 'served without authentication');
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  doc = await res.json();
});
after(() => stack?.close());

test('the document is valid OpenAPI 3.1.0, version 1.0.0, with the bearer scheme and the error envelope', async () => {
  const result = await new Validator().validate(doc);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
    type: 'http', scheme: 'bearer', description: doc.components.securitySchemes.bearerAuth.description,
  });
  assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
  assert.deepEqual(doc.components.schemas.Error.properties.error.required, ['type', 'code', 'message']);
  const create = doc.paths['/v1/payments'].post;
  assert.ok(create.parameters.some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key' && p.schema.maxLength === 255));
  assert.ok(create.responses['429'].headers['x-ratelimit-reset']);
  assert.ok(create.responses['201'].headers['x-ratelimit-limit']);
});

test('info.license is the project\'s, and servers names this deployment (the address it listens on by default)', () => {
  assert.deepEqual(doc.info.license, { name: 'Apache-2.0', identifier: 'Apache-2.0' });
  assert.equal(doc.servers.length, 1);
  assert.equal(doc.servers[0].url, stack.baseUrl);
});

const operationOf = (method: string, path: string) => doc.paths[path][method];

test('every 400 of the error registry is declared, by code, on the operations that can answer it', () => {
  const codes = Object.entries(ERRORS).filter(([, e]) => e.status === 400).map(([code]) => code)
    .filter((code) => !BAD_REQUESTS_OUTSIDE_V1.includes(code));
  assert.deepEqual(BAD_REQUESTS_OUTSIDE_V1, ['invalid_signature'], 'only the provider webhooks route answers a 400 outside /v1');
  assert.ok(codes.length >= 5);
  for (const [method, path] of OPERATIONS) {
    const declared = operationOf(method, path).responses['400']?.description ?? '';
    assert.match(declared, /malformed_request/, `${method} ${path}: any URL can be malformed`);
    assert.equal(/invalid_json/.test(declared), method === 'post', `${method} ${path}: every POST body is parsed`);
    assert.equal(/invalid_cursor/.test(declared), operationOf(method, path).parameters.some((p: any) => p.name === 'cursor'));
  }
  for (const code of codes) {
    assert.ok(OPERATIONS.some(([m, p]) => operationOf(m, p).responses['400'].description.includes(code)), code);
  }
  for (const path of ['/v1/payments', '/v1/payments/{id}/refund', '/v1/payouts']) {
    assert.match(operationOf('post', path).responses['400'].description, /test_scenario_not_allowed/, path);
  }
});

test('the answers a client gets to bad requests are declared on the operation it called', async () => {
  const deep = JSON.stringify({ amount: 1, currency: 'EUR', payment_method: 'card', metadata: [[[[[[[[['x']]]]]]]]] });
  const cases: Array<[string, string, string, RequestInit & { key?: string }, number, string]> = [
    ['post', '/v1/payments', '/v1/payments', {
      key: liveKey, body: JSON.stringify({ amount: 100, currency: 'EUR', payment_method: 'card', test_scenario: 'success' }),
    }, 400, 'test_scenario_not_allowed'],
    ['post', '/v1/payouts', '/v1/payouts', {
      key: liveKey,
      body: JSON.stringify({
        amount: 100, currency: 'EUR', destination: { type: 'bank_account', display: 'x' }, test_scenario: 'success',
      }),
    }, 400, 'test_scenario_not_allowed'],
    ['post', '/v1/payments', '/v1/payments', { body: deep }, 400, 'json_too_deep'],
    ['post', '/v1/payouts/{id}/cancel', '/v1/payouts/po_none/cancel', { body: '{bad' }, 400, 'invalid_json'],
    ['get', '/v1/transactions', '/v1/transactions?cursor=zzz', {}, 400, 'invalid_cursor'],
    ['get', '/v1/payments/{id}', '/v1/payments/%FF', {}, 400, 'malformed_request'],
    ['get', '/v1/me', '/v1/me?x=%FF', {}, 422, 'validation_error'],
    ['post', '/v1/payouts/{id}/cancel', '/v1/payouts/po_none/cancel', {
      body: 'x', headers: { 'content-type': 'text/plain' },
    }, 415, 'unsupported_media_type'],
  ];
  for (const [method, path, url, init, status, code] of cases) {
    const headers = { authorization: `Bearer ${init.key ?? key}`, 'content-type': 'application/json', ...init.headers };
    const res = await fetch(`${stack.baseUrl}${url}`, { method: method.toUpperCase(), body: init.body, headers });
    const body = (await res.json()) as any;
    assert.equal(res.status, status, `${method} ${url}: ${JSON.stringify(body)}`);
    assert.equal(body.error.code, code, `${method} ${url}`);
    const declared = operationOf(method, path).responses[String(status)];
    assert.ok(declared, `${method} ${path} answered ${status}, which it does not declare`);
    if (status === 400) assert.ok(declared.description.includes(code), `${method} ${path} does not name ${code}`);
  }
});

const OPERATIONS: Array<[string, string]> = [
  ['post', '/v1/payments'], ['get', '/v1/payments'], ['get', '/v1/payments/{id}'], ['get', '/v1/payments/{id}/timeline'],
  ['post', '/v1/payments/{id}/capture'], ['post', '/v1/payments/{id}/cancel'], ['post', '/v1/payments/{id}/refund'],
  ['get', '/v1/payments/{id}/refunds'], ['get', '/v1/refunds/{id}'], ['post', '/v1/payouts'], ['get', '/v1/payouts'],
  ['get', '/v1/payouts/{id}'], ['post', '/v1/payouts/{id}/cancel'], ['get', '/v1/transactions'], ['get', '/v1/balances'],
  ['get', '/v1/settlements'], ['get', '/v1/settlements/{id}'], ['post', '/v1/payment-methods'],
  ['get', '/v1/payment-methods/{id}'], ['post', '/v1/webhooks/test'], ['get', '/v1/test/scenarios'], ['get', '/v1/me'],
  // Added since (the contract allows new endpoints): a stored method's credentials and the events API.
  ['post', '/v1/payment-methods/{id}/credentials'], ['get', '/v1/payment-methods/{id}/credentials'],
  ['delete', '/v1/payment-methods/{id}/credentials/{credential}'],
  ['get', '/v1/events'], ['get', '/v1/events/{id}'],
  // Disputes (docs/disputes.md): a document and evidence before accepting, which closes the dispute.
  ['get', '/v1/disputes'], ['get', '/v1/disputes/{id}'], ['post', '/v1/disputes/{id}/documents'],
  ['post', '/v1/disputes/{id}/evidence'], ['post', '/v1/disputes/{id}/accept'],
];

test('it covers exactly the contract\'s 22 operations and those added since (credentials, events, disputes)', () => {
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`));
  assert.deepEqual(documented.sort(), OPERATIONS.map(([m, p]) => `${m} ${p}`).sort());
});

test('real responses of every operation validate against the schema documented for their status', async () => {
  const ajv = addFormats(new Ajv2020({ strict: false }));
  ajv.addSchema({ ...doc, $id: 'openapi' });
  const post = async (path: string, body: unknown) => (await request(stack.baseUrl, 'POST', path, { key, body })).body;
  // Real objects of every kind, so each operation answers its success shape where its state allows.
  const payment = await post('/v1/payments', {
    amount: 50_000, currency: 'EUR', payment_method: 'card', customer: { email: 'a@b.co' }, metadata: { a: '1' },
  });
  await eventually('the ledger to record the payment', async () =>
    ((await request(stack.baseUrl, 'GET', '/v1/transactions', { key })).body.data.length > 0 ? true : undefined));
  const ledger = createClient(LedgerService, createPeerTransport(stack.serviceUrls.ledger, stack.internalToken));
  await ledger.runSettlementCycle({});
  const settlement = (await request(stack.baseUrl, 'GET', '/v1/settlements', { key })).body.data[0];
  const payoutBody = { amount: 100, currency: 'EUR', destination: { type: 'bank_account', display: '•••• 1234' } };
  const disputed = await post('/v1/payments', { amount: 2500, currency: 'EUR', payment_method: 'card', test_scenario: 'dispute' });
  const ids: Record<string, string> = {
    '/v1/disputes/': await eventually('the sandbox to open the dispute', async () =>
      (await request(stack.baseUrl, 'GET', `/v1/disputes?payment_id=${disputed.id}`, { key })).body.data[0]?.id),
    '/v1/payments/': payment.id,
    '/v1/refunds/': (await post(`/v1/payments/${payment.id}/refund`, { amount: 100 })).id,
    '/v1/payouts/': (await post('/v1/payouts', payoutBody)).id,
    '/v1/settlements/': settlement.id,
    '/v1/payment-methods/': (await post('/v1/payment-methods', { type: 'card', provider_token: 'tok_demo' })).id,
    '/v1/events/': await eventually('the payment\'s events to be stored', async () =>
      (await request(stack.baseUrl, 'GET', '/v1/events', { key })).body.data[0]?.id),
  };
  const bodies: Record<string, unknown> = {
    'post /v1/payments': { amount: 1000, currency: 'EUR', payment_method: 'card' },
    'post /v1/payouts': payoutBody,
    'post /v1/payment-methods': { type: 'card', provider_token: 'tok_demo' },
    'post /v1/payments/{id}/refund': { amount: 100 },
    'post /v1/payment-methods/{id}/credentials': { type: 'provider_token', token: 'tok_other', provider_code: 'demo_beta' },
    'post /v1/disputes/{id}/documents': { filename: 'proof.png', type: 'image/png', content: 'iVBORw0KGgo=' },
    'post /v1/disputes/{id}/evidence': { shipping_tracking_number: 'JD0146', submit: false },
  };
  // An automatic-capture payment that succeeded can be neither captured nor cancelled (409).
  const refused = new Set(['post /v1/payments/{id}/capture', 'post /v1/payments/{id}/cancel']);
  let checked = 0;
  for (const [method, path] of OPERATIONS) {
    const prefix = Object.keys(ids).find((p) => path.startsWith(p));
    let url = prefix ? path.replace('{id}', ids[prefix]) : path;
    // The credential added by the POST above (operations run in table order).
    if (url.includes('{credential}')) {
      const listed = await request(stack.baseUrl, 'GET', url.replace('/{credential}', ''), { key });
      url = url.replace('{credential}', listed.body.data.at(-1).id);
    }
    const res = await request(stack.baseUrl, method.toUpperCase(), url, { key, body: bodies[`${method} ${path}`] });
    const responses = doc.paths[path][method].responses;
    assert.ok(responses[String(res.status)], `${method} ${path} answered ${res.status}, which it does not document`);
    const validate = ajv.compile({
      $ref: `openapi#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${res.status}/content/application~1json/schema`,
    });
    assert.ok(validate(res.body), `${method} ${path} ${res.status}: ${JSON.stringify(validate.errors)}`);
    if (refused.has(`${method} ${path}`)) assert.equal(res.status, 409, `${method} ${path}`);
    else assert.ok(res.status < 300, `${method} ${path} succeeds: ${res.status} ${JSON.stringify(res.body)}`);
    checked++;
  }
  assert.equal(checked, 32);
  const live = await request(stack.baseUrl, 'GET', '/v1/test/scenarios', { key: liveKey });
  assert.equal(live.status, 403);
});

test('each operation has a short name for the navigation (summary) and its sentence as description', () => {
  for (const [method, path] of OPERATIONS) {
    const op = operationOf(method, path);
    assert.ok(op.summary.length <= 30 && !op.summary.endsWith('.'), `${method} ${path}: a short name, got "${op.summary}"`);
    assert.ok(op.description.length > op.summary.length, `${method} ${path}: a description`);
  }
  assert.equal(operationOf('post', '/v1/payments').summary, 'Create a payment');
});

test('request amounts are described as integers in minor units; every request body has an example that passes validation and the API', async () => {
  const schemas = doc.components.schemas;
  for (const name of ['CreatePaymentRequest', 'CaptureRequest', 'CreateRefundRequest', 'CreatePayoutRequest']) {
    const amount = schemas[name].properties.amount;
    assert.equal(amount.type, 'integer', name);
    assert.match(amount.description, /minor unit/, name);
  }
  const ajv = addFormats(new Ajv2020({ strict: false }));
  ajv.addSchema({ ...doc, $id: 'openapi' });
  const sent: Record<string, string> = {
    CreatePaymentRequest: '/v1/payments', CreatePayoutRequest: '/v1/payouts',
    CreatePaymentMethodRequest: '/v1/payment-methods', WebhookTestRequest: '/v1/webhooks/test',
  };
  for (const [method, path] of OPERATIONS) {
    const body = operationOf(method, path).requestBody;
    if (!body) continue;
    const name = body.content['application/json'].schema.$ref.split('/').pop();
    const examples = schemas[name].examples;
    assert.ok(Array.isArray(examples) && examples.length > 0, `${name} has an example`);
    const validate = ajv.compile({ $ref: `openapi#/components/schemas/${name}` });
    for (const example of examples) {
      assert.ok(validate(example), `${name}'s example: ${JSON.stringify(validate.errors)}`);
      if (sent[name]) {
        const res = await request(stack.baseUrl, 'POST', sent[name], { key, body: example });
        assert.ok(res.status < 300, `${name}'s example sent to ${sent[name]}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
  }
  assert.equal(schemas.CreatePaymentRequest.examples[0].currency, 'EUR', 'never an empty currency');
});
