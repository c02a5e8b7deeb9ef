// GET /v1/events and GET /v1/events/{id} through the real gateway and parts: every public event of
// the key's project and mode, newest first, paginated, filtered by type and emission time, each the
// very text its webhook delivered; payout.cancelled among them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../services/platform/ids.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { eventually, startReceiver, type Receiver } from './webhooks-support.js';

describe('the events API', () => {
  let stack: TestStack;
  let receiver: Receiver;
  let key: string;
  let other: string;
  let projectId: string;

  before(async () => {
    // A minute's hold: the payout below is cancelled while still queued.
    stack = await startTestStack({ env: { PAYOUT_TEST_HOLD_MS: '60000' } });
    receiver = await startReceiver(200);
    const merchant = await stack.newMerchantKey('test');
    key = merchant.secret;
    projectId = merchant.projectId;
    other = (await stack.newMerchantKey('test')).secret;
    const created = await stack.manage('POST', `/projects/${projectId}/webhook-endpoints`, { mode: 'test', url: receiver.url, events: ['*'] });
    assert.equal(created.status, 201);
  });
  after(async () => {
    await receiver?.close();
    await stack?.close();
  });

  const get = (path: string, k = key) => request(stack.baseUrl, 'GET', path, { key: k });
  const raw = async (path: string, k = key) => {
    const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${k}` } });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  test('every event emitted, newest first, paginated, filtered, each byte-identical to its delivery; payout.cancelled', async () => {
    const t0 = new Date();
    const pay = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1250, currency: 'EUR', payment_method: 'card', test_scenario: 'success' },
    });
    assert.equal(pay.status, 201);
    // A test payout draws on what test payments processed: wait until the ledger has the payment.
    await eventually(async () => {
      const balances = await request(stack.baseUrl, 'GET', '/v1/balances', { key });
      const eur = (balances.body.data as Array<{ currency: string; processed_net: number }>).find((b) => b.currency === 'EUR');
      return eur && eur.processed_net > 0 ? true : undefined;
    });
    const payout = await request(stack.baseUrl, 'POST', '/v1/payouts', {
      key, body: { amount: 500, currency: 'EUR', destination: { type: 'bank_account', token: 'ben_demo_1', display: '•••• 4321' } },
    });
    assert.equal(payout.status, 201, JSON.stringify(payout.body));
    const cancelled = await request(stack.baseUrl, 'POST', `/v1/payouts/${payout.body.id}/cancel`, { key });
    assert.equal(cancelled.status, 200);

    // payment.created, payment.successful, payout.created, payout.cancelled, all delivered.
    const delivered = await eventually(async () => {
      const types = receiver.received.map((r) => JSON.parse(r.body).type);
      return ['payment.created', 'payment.successful', 'payout.created', 'payout.cancelled'].every((t) => types.includes(t))
        ? receiver.received : undefined;
    }, 20_000, 'four events delivered');
    const all = await eventually(async () => {
      const res = await get('/v1/events');
      return res.body.data.length >= 4 ? res : undefined;
    });
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys(all.body), ['data', 'has_more', 'next_cursor']);
    const ids = all.body.data.map((e: any) => e.id);
    assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first');
    assert.equal(all.body.has_more, false);
    assert.equal(all.body.next_cursor, null);
    const cancelledEvent = all.body.data.find((e: any) => e.type === 'payout.cancelled');
    assert.ok(cancelledEvent, 'payout.cancelled is listed');
    assert.equal(cancelledEvent.data.object.id, payout.body.id);
    assert.equal(cancelledEvent.data.object.status, 'cancelled');
    assert.deepEqual(Object.keys(cancelledEvent), ['id', 'type', 'mode', 'created_at', 'data']);

    // Each event, read alone and in the list, is the very text its webhook carried.
    const listText = (await raw('/v1/events')).text;
    for (const d of delivered) {
      const id = JSON.parse(d.body).id;
      const one = await raw(`/v1/events/${id}`);
      assert.equal(one.status, 200);
      assert.match(one.type ?? '', /^application\/json/);
      assert.equal(one.text, d.body, `GET /v1/events/${id} is byte-identical to its delivery`);
      assert.ok(listText.includes(d.body), `the list carries ${id} byte for byte`);
    }

    // Pages of one: the same events, in the same order, then no more.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Awaited<ReturnType<typeof get>> = await get(`/v1/events?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.length, 1);
      paged.push(res.body.data[0].id);
      cursor = res.body.next_cursor;
      assert.equal(res.body.has_more, cursor !== null);
    } while (cursor);
    assert.deepEqual(paged, ids);

    const byType = await get('/v1/events?type=payout.cancelled');
    assert.deepEqual(byType.body.data.map((e: any) => e.id), [cancelledEvent.id]);
    const later = new Date(Date.now() + 60_000).toISOString();
    assert.deepEqual((await get(`/v1/events?from=${encodeURIComponent(later)}`)).body.data, []);
    const before = new Date(t0.getTime() - 60_000).toISOString();
    assert.deepEqual((await get(`/v1/events?to=${encodeURIComponent(before)}`)).body.data, []);
    const window = await get(`/v1/events?from=${encodeURIComponent(before)}&to=${encodeURIComponent(later)}`);
    assert.deepEqual(window.body.data.map((e: any) => e.id), ids);
  });

  test('internal events are never listed; another project\'s events are not found', async () => {
    const internalId = newId('evt');
    const me = (await get('/v1/me')).body;
    await stack.query(
      `INSERT INTO webhooks.events (id, type, merchant_id, project_id, mode, body, created_at, received_at)
       VALUES ($1, 'internal.attempt.settled', $2, $3, 'test', '{}', now(), now())`,
      [internalId, me.merchant.id, projectId],
    );
    assert.ok(!(await get('/v1/events?limit=200')).body.data.some((e: any) => e.id === internalId));
    const hidden = await get(`/v1/events/${internalId}`);
    assert.equal(hidden.status, 404);
    assert.equal(hidden.body.error.type, 'not_found_error');

    const mine = (await get('/v1/events')).body.data[0].id;
    const elsewhere = await get(`/v1/events/${mine}`, other);
    assert.equal(elsewhere.status, 404);
    assert.equal(elsewhere.body.error.param, 'id');
    assert.ok(elsewhere.headers.get('x-request-id'));
    assert.deepEqual((await get('/v1/events', other)).body.data, []);
  });

  test('bad filters are refused in the error envelope: unknown type, bad time, bad cursor, from after to', async () => {
    for (const [query, status] of [
      ['type=payment.sucessful', 422], ['from=yesterday', 422], ['limit=500', 422], ['cursor=not-ours', 400],
      [`from=${encodeURIComponent('2026-02-01T00:00:00Z')}&to=${encodeURIComponent('2026-01-01T00:00:00Z')}`, 422],
    ] as const) {
      const res = await get(`/v1/events?${query}`);
      assert.equal(res.status, status, `${query}: ${JSON.stringify(res.body)}`);
      assert.ok(res.body.error.code && res.body.request_id, query);
    }
  });
});
