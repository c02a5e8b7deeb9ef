import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_BODY_BYTES, METADATA_KEY_MAX_LENGTH, METADATA_MAX_KEYS, METADATA_VALUE_MAX_LENGTH } from '../services/contract/limits.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { eventually } from './helpers/eventually.js';
import { startSplitStack, type SplitStack } from './helpers/split-stack.js';
import { request } from './helpers/stack.js';
import { serveLoopback, type LoopbackServer } from './helpers/stand-in-server.js';

// No event blocks another, on the six parts as processes over real NATS JetStream:
// one merchant's largest allowed payment and a refused oversized request hold back nobody; another
// merchant's payments all reach the ledger and webhooks within seconds.

const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();

const OTHER_PAYMENTS = 30;
const WITHIN_MS = 15_000;

/** A payment body as large as the limits allow: every metadata key and value at its longest, in 3-byte characters as far as the body limit lets them. */
function largestPaymentBody(): Record<string, unknown> {
  const key = (i: number) => `k${String(i).padStart(2, '0')}_`.padEnd(METADATA_KEY_MAX_LENGTH, 'x');
  const build = (wide: number) => ({
    amount: 4200, currency: 'EUR', payment_method: 'card',
    description: '€'.repeat(500), reference: 'r'.repeat(128),
    metadata: Object.fromEntries(Array.from({ length: METADATA_MAX_KEYS }, (_, i) =>
      [key(i), '€'.repeat(wide) + 'a'.repeat(METADATA_VALUE_MAX_LENGTH - wide)])),
  });
  let wide = METADATA_VALUE_MAX_LENGTH;
  // Leave room for the JSON the client adds nothing to; the limit is on the body's bytes.
  while (Buffer.byteLength(JSON.stringify(build(wide))) > MAX_BODY_BYTES - 256) wide--;
  return build(wide);
}

describe('one merchant\'s events never hold back another\'s', { skip: withoutNats }, () => {
  let split: SplitStack;
  let receiver: LoopbackServer;
  let receiverUrl: string;
  const delivered: Array<{ type: string; objectId: string; bytes: number }> = [];

  const manage = (method: string, path: string, body?: unknown) =>
    request(split.baseUrl, method, `/manage/v1${path}`, { key: split.operatorToken, body });

  async function merchantWithEndpoint(name: string): Promise<string> {
    const merchant = await manage('POST', '/merchants', { name });
    assert.equal(merchant.status, 201);
    const projectId = merchant.body.project.id;
    const key = await manage('POST', `/projects/${projectId}/keys`, { mode: 'test', name: 'k' });
    assert.equal(key.status, 201);
    const endpoint = await manage('POST', `/projects/${projectId}/webhook-endpoints`, {
      mode: 'test', url: receiverUrl, events: ['*'],
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    return key.body.secret;
  }

  before(async () => {
    receiver = await serveLoopback((_req, res, body) => {
      const event = JSON.parse(body);
      delivered.push({ type: event.type, objectId: event.data.object.id, bytes: Buffer.byteLength(body) });
      res.writeHead(200).end();
    });
    receiverUrl = `${receiver.baseUrl}/hooks`;
    split = await startSplitStack(natsUrl!);
  });
  after(async () => {
    await split?.close();
    await receiver?.close();
  });

  test('the largest allowed payment and a refused oversized one, then another merchant\'s payments all arrive', async () => {
    const big = await merchantWithEndpoint('Big payload merchant');
    const other = await merchantWithEndpoint('Other merchant');

    const largest = largestPaymentBody();
    const largestBytes = Buffer.byteLength(JSON.stringify(largest));
    const created = await request(split.baseUrl, 'POST', '/v1/payments', { key: big, body: largest });
    assert.equal(created.status, 201, JSON.stringify(created.body)?.slice(0, 500));
    assert.equal(created.body.status, 'successful');

    // Over the body limit: refused before anything is stored or published.
    const oversized = { ...largest, description: '€'.repeat(500), customer: { name: 'n'.repeat(MAX_BODY_BYTES) } };
    const refused = await request(split.baseUrl, 'POST', '/v1/payments', { key: big, body: oversized });
    assert.equal(refused.status, 413, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'body_too_large');
    assert.ok(refused.headers.get('x-request-id'));
    // Within the body limit but over the metadata rule: refused too, naming the field.
    const longValue = { amount: 100, currency: 'EUR', payment_method: 'card', metadata: { k: 'v'.repeat(METADATA_VALUE_MAX_LENGTH + 1) } };
    const invalid = await request(split.baseUrl, 'POST', '/v1/payments', { key: big, body: longValue });
    assert.equal(invalid.status, 422, JSON.stringify(invalid.body));

    const started = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < OTHER_PAYMENTS; i++) {
      const res = await request(split.baseUrl, 'POST', '/v1/payments', {
        key: other, body: { amount: 1000 + i, currency: 'EUR', payment_method: 'card' },
      });
      assert.equal(res.status, 201);
      ids.push(res.body.id);
    }

    await eventually('every payment of the other merchant in its ledger', async () => {
      const res = await request(split.baseUrl, 'GET', '/v1/transactions?limit=100', { key: other });
      const paid = new Set(res.body.data.map((t: any) => t.payment_id));
      return ids.every((id) => paid.has(id)) ? true : undefined;
    }, WITHIN_MS);
    await eventually('every payment.successful of the other merchant at its webhook endpoint', async () => {
      const got = new Set(delivered.filter((d) => d.type === 'payment.successful').map((d) => d.objectId));
      return ids.every((id) => got.has(id)) ? true : undefined;
    }, WITHIN_MS);
    const elapsed = Date.now() - started;
    assert.ok(elapsed < WITHIN_MS, `took ${elapsed} ms`);

    // The largest payment itself is no exception: its events were published and delivered.
    await eventually('the largest payment in its ledger and at its endpoint', async () => {
      const res = await request(split.baseUrl, 'GET', '/v1/transactions?limit=100', { key: big });
      const inLedger = res.body.data.some((t: any) => t.payment_id === created.body.id);
      const hook = delivered.find((d) => d.objectId === created.body.id && d.type === 'payment.successful');
      return inLedger && hook ? hook : undefined;
    }, WITHIN_MS).then((hook) => assert.ok(hook.bytes >= largestBytes, `delivered ${hook.bytes} bytes for a ${largestBytes}-byte request`));
    for (const part of ['payments', 'ledger', 'payouts']) {
      const parked = await manage('GET', `/dead-letters?part=${part}`);
      assert.equal(parked.status, 200);
      assert.deepEqual(parked.body.data, [], `nothing parked in ${part}`);
    }
  });
});
