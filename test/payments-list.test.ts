import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

let stack: TestStack;
let key: string;
const created: any[] = [];

before(async () => {
  stack = await startTestStack();
  key = (await stack.newMerchantKey('test')).secret;
  const bodies = [
    { amount: 100, currency: 'EUR', payment_method: 'card', reference: 'ord_1', country: 'DE', description: 'Blue 50%_off shoes' },
    { amount: 200, currency: 'USD', payment_method: 'wallet', reference: 'ord_2', customer: { email: 'ada@example.com' } },
    { amount: 300, currency: 'EUR', payment_method: 'instant', reference: 'ord_3', country: 'FR' },
    { amount: 400, currency: 'GBP', payment_method: 'card', reference: 'ord_4', description: 'Red hat' },
    { amount: 500, currency: 'EUR', payment_method: 'local', reference: 'ord_5' },
  ];
  for (const body of bodies) {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', { key, body });
    assert.equal(res.status, 201);
    created.push(res.body);
  }
});
after(() => stack?.close());

const list = async (query: string) => {
  const res = await request(stack.baseUrl, 'GET', `/v1/payments${query}`, { key });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};
const refs = (page: any) => page.data.map((p: any) => p.reference);

test('newest first, the list envelope, and a default page of 50', async () => {
  const page = await list('');
  assert.deepEqual(Object.keys(page), ['data', 'has_more', 'next_cursor']);
  assert.deepEqual(refs(page), ['ord_5', 'ord_4', 'ord_3', 'ord_2', 'ord_1']);
  assert.equal(page.has_more, false);
  assert.equal(page.next_cursor, null);
  assert.deepEqual(page.data[4], created[0], 'list items are serialised like GET /v1/payments/{id}');
});

test('cursor pages walk everything once and stay stable while new payments arrive', async () => {
  const first = await list('?limit=2');
  assert.deepEqual(refs(first), ['ord_5', 'ord_4']);
  assert.equal(first.has_more, true);
  assert.equal(typeof first.next_cursor, 'string');
  assert.doesNotMatch(first.next_cursor, /pay_/, 'cursors are opaque');
  const arrived = await request(stack.baseUrl, 'POST', '/v1/payments', {
    key, body: { amount: 999, currency: 'EUR', payment_method: 'card', reference: 'ord_new' },
  });
  const second = await list(`?limit=2&cursor=${first.next_cursor}`);
  assert.deepEqual(refs(second), ['ord_3', 'ord_2']);
  const third = await list(`?limit=2&cursor=${second.next_cursor}`);
  assert.deepEqual(refs(third), ['ord_1']);
  assert.equal(third.has_more, false);
  assert.equal(third.next_cursor, null);
  assert.deepEqual(refs(await list('?limit=1')), ['ord_new']);
  created.push(arrived.body);
});

test('filters: status, currency (any case), country, payment_method, reference, from and to', async () => {
  assert.equal((await list('?status=successful,failed')).data.length, 6);
  assert.equal((await list('?status=failed')).data.length, 0);
  assert.deepEqual(refs(await list('?currency=eur')), ['ord_new', 'ord_5', 'ord_3', 'ord_1']);
  assert.deepEqual(refs(await list('?country=fr')), ['ord_3']);
  assert.deepEqual(refs(await list('?payment_method=card')), ['ord_new', 'ord_4', 'ord_1']);
  assert.deepEqual(refs(await list('?reference=ord_2')), ['ord_2']);
  const from = encodeURIComponent(created[2].created_at);
  const to = encodeURIComponent(created[4].created_at);
  assert.deepEqual(refs(await list(`?from=${from}&to=${to}`)), ['ord_4', 'ord_3'], 'from inclusive, to exclusive');
  assert.deepEqual(refs(await list('?currency=EUR&payment_method=card&limit=1')), ['ord_new']);
});

test('search matches an id, a reference or a customer email exactly, or part of the description', async () => {
  assert.deepEqual(refs(await list(`?search=${created[1].id}`)), ['ord_2']);
  assert.deepEqual(refs(await list('?search=ord_4')), ['ord_4']);
  assert.deepEqual(refs(await list('?search=ada%40example.com')), ['ord_2']);
  assert.deepEqual(refs(await list('?search=red')), ['ord_4'], 'case-insensitive part of the description');
  assert.deepEqual(refs(await list('?search=50%25_')), ['ord_1'], 'LIKE wildcards match themselves');
  assert.deepEqual(refs(await list('?search=%25')), ['ord_1']);
  assert.deepEqual(refs(await list('?search=ord_')), [], 'a reference matches whole, not in part');
});
