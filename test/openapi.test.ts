import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;

let stack: TestStack;
let doc: any;
let key: string;
let liveKey: string;

before(async () => {
  stack = await startTestStack();
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

const OPERATIONS: Array<[string, string]> = [
  ['post', '/v1/payments'], ['get', '/v1/payments'], ['get', '/v1/payments/{id}'], ['get', '/v1/payments/{id}/timeline'],
  ['post', '/v1/payments/{id}/capture'], ['post', '/v1/payments/{id}/cancel'], ['post', '/v1/payments/{id}/refund'],
  ['get', '/v1/payments/{id}/refunds'], ['get', '/v1/refunds/{id}'], ['post', '/v1/payouts'], ['get', '/v1/payouts'],
  ['get', '/v1/payouts/{id}'], ['post', '/v1/payouts/{id}/cancel'], ['get', '/v1/transactions'], ['get', '/v1/balances'],
  ['get', '/v1/settlements'], ['get', '/v1/settlements/{id}'], ['post', '/v1/payment-methods'],
  ['get', '/v1/payment-methods/{id}'], ['post', '/v1/webhooks/test'], ['get', '/v1/test/scenarios'], ['get', '/v1/me'],
];

test('it covers exactly the contract\'s 22 operations', () => {
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`));
  assert.deepEqual(documented.sort(), OPERATIONS.map(([m, p]) => `${m} ${p}`).sort());
});

test('real responses of every operation validate against the schema documented for their status', async () => {
  const ajv = addFormats(new Ajv2020({ strict: false }));
  ajv.addSchema({ ...doc, $id: 'openapi' });
  const created = await request(stack.baseUrl, 'POST', '/v1/payments', {
    key, body: { amount: 1000, currency: 'EUR', payment_method: 'card', customer: { email: 'a@b.co' }, metadata: { a: 1 } },
  });
  const bodies: Record<string, unknown> = {
    'post /v1/payments': { amount: 1000, currency: 'EUR', payment_method: 'card' },
    'post /v1/payouts': { amount: 100, currency: 'EUR', destination: { type: 'bank_account', display: '•••• 1234' } },
    'post /v1/payment-methods': { type: 'card', provider_token: 'tok_demo' },
  };
  let checked = 0;
  for (const [method, path] of OPERATIONS) {
    const url = path.replace('{id}', path.startsWith('/v1/payments/') ? created.body.id : 'x_1');
    const res = await request(stack.baseUrl, method.toUpperCase(), url, { key, body: bodies[`${method} ${path}`] });
    const responses = doc.paths[path][method].responses;
    assert.ok(responses[String(res.status)], `${method} ${path} answered ${res.status}, which it does not document`);
    const validate = ajv.compile({
      $ref: `openapi#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${res.status}/content/application~1json/schema`,
    });
    assert.ok(validate(res.body), `${method} ${path} ${res.status}: ${JSON.stringify(validate.errors)}`);
    checked++;
  }
  assert.equal(checked, 22);
  // The successful shapes, which the loop above met only where the service is built.
  const live = await request(stack.baseUrl, 'GET', '/v1/test/scenarios', { key: liveKey });
  assert.equal(live.status, 403);
});
