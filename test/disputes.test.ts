// Disputes through the REST gateway on a real stack (Postgres, NATS JetStream): the sandbox's
// `dispute` scenario opens a chargeback a few seconds after the payment succeeds; the merchant lists,
// reads, stages and submits evidence (with a document), or accepts; the demo provider decides; the
// merchant's endpoint receives dispute.created / .updated / .closed, signed (docs/disputes.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ISO_TIMESTAMP, expectError } from './helpers/api-assertions.js';
import { eventually } from './helpers/eventually.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { contractSignatureValid, startReceiver, type Receiver } from './webhooks-support.js';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);

describe('disputes, through the HTTP gateway', () => {
  let stack: TestStack;
  let receiver: Receiver;
  let merchant: Awaited<ReturnType<TestStack['newMerchantKey']>>;
  let key: string;
  let other: string;
  let secret: string;
  /** Payments of the `dispute` scenario made up front (their chargebacks open a few seconds later). */
  let payments: any[];

  before(async () => {
    stack = await startTestStack();
    receiver = await startReceiver(200);
    merchant = await stack.newMerchantKey('test');
    key = merchant.secret;
    other = (await stack.newMerchantKey('test')).secret;
    const endpoint = await stack.manage('POST', `/projects/${merchant.projectId}/webhook-endpoints`, {
      mode: 'test', url: receiver.url, events: ['dispute.created', 'dispute.updated', 'dispute.closed'],
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    secret = endpoint.body.secret;
    payments = await Promise.all(Array.from({ length: 5 }, async (_, i) => {
      const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
        key, body: { amount: 2500 + i, currency: 'EUR', payment_method: 'card', test_scenario: 'dispute' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    }));
  });
  after(async () => {
    await receiver?.close();
    await stack?.close();
  });

  const api = (method: string, path: string, body?: unknown, k = key) => request(stack.baseUrl, method, path, { key: k, body });
  const disputeOf = (paymentId: string) => eventually(`a dispute on ${paymentId}`, async () => {
    const res = await api('GET', `/v1/disputes?payment_id=${paymentId}`);
    return res.body.data?.[0];
  });
  const statusOf = (id: string, status: string) => eventually(`dispute ${id} ${status}`, async () => {
    const res = await api('GET', `/v1/disputes/${id}`);
    return res.body.status === status ? res.body : undefined;
  });

  test('a dispute scenario payment succeeds, then its chargeback opens with the funds withdrawn', async () => {
    const p = payments[0];
    assert.equal(p.status, 'successful');
    assert.deepEqual(p.disputes, []);
    const d = await disputeOf(p.id);
    assert.match(d.id, /^dp_[0-9a-z]{26}$/);
    assert.equal(d.object, 'dispute');
    assert.deepEqual(
      [d.payment_id, d.amount, d.currency, d.fee_amount, d.reason, d.stage, d.status, d.funds_withdrawn],
      [p.id, 2500, 'EUR', 1500, 'fraudulent', 'chargeback', 'needs_response', true],
    );
    assert.match(d.evidence_due_by, ISO_TIMESTAMP);
    assert.equal(d.provider.code, p.route.provider.code);
    assert.equal(d.attempt_id, p.attempts[0].id);
    assert.deepEqual(d.documents, []);
    assert.equal(d.evidence.shipping_tracking_number, null);

    const read = await api('GET', `/v1/disputes/${d.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, d);

    const payment = (await api('GET', `/v1/payments/${p.id}`)).body;
    assert.deepEqual(payment.disputes, [{
      id: d.id, amount: 2500, currency: 'EUR', reason: 'fraudulent', stage: 'chargeback', status: 'needs_response',
      funds_withdrawn: true, evidence_due_by: d.evidence_due_by, created_at: d.created_at,
    }]);
    const timeline = (await api('GET', `/v1/payments/${p.id}/timeline`)).body.data;
    const opened = timeline.find((e: any) => e.type === 'dispute.opened');
    assert.equal(opened.title, `Dispute opened: fraudulent, 25.00 EUR withdrawn, evidence due ${d.evidence_due_by.slice(0, 10)}`);
    assert.match(opened.description, /withdrew 25\.00 EUR and a fee of 15\.00 EUR/);

    // The ledger's once-only record of the withdrawal: one movement, one internal event.
    const moved = await stack.query(
      `SELECT payload->'data'->'object' AS o FROM payments.outbox WHERE type = 'internal.dispute.funds_moved'
       AND payload->'data'->'object'->>'dispute_id' = $1`, [d.id],
    );
    assert.equal(moved.rows.length, 1);
    assert.deepEqual([moved.rows[0].o.kind, moved.rows[0].o.amount, moved.rows[0].o.fee_amount], ['withdrawal', 2500, 1500]);
    assert.match(moved.rows[0].o.id, /^dpm_/);
  });

  test('another project\'s dispute is 404; a live key does not see test disputes', async () => {
    const d = await disputeOf(payments[0].id);
    expectError(await api('GET', `/v1/disputes/${d.id}`, undefined, other), 404, 'not_found_error', 'resource_not_found', 'id');
    expectError(await api('POST', `/v1/disputes/${d.id}/accept`, undefined, other), 404, 'not_found_error', 'resource_not_found', 'id');
    assert.deepEqual((await api('GET', '/v1/disputes', undefined, other)).body.data, []);
    await stack.manage('POST', `/merchants/${merchant.merchantId}/verify`);
    const live = await stack.manage('POST', `/projects/${merchant.projectId}/keys`, { mode: 'live', name: 'live key' });
    assert.equal(live.status, 201, JSON.stringify(live.body));
    expectError(await api('GET', `/v1/disputes/${d.id}`, undefined, live.body.secret), 404, 'not_found_error', 'resource_not_found', 'id');
    assert.deepEqual((await api('GET', '/v1/disputes', undefined, live.body.secret)).body.data, []);
  });

  test('the list: newest first, filters by status, payment and creation time, keyset pages', async () => {
    const all = await Promise.all(payments.map((p) => disputeOf(p.id)));
    const listed = await api('GET', '/v1/disputes?limit=100');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((d: any) => d.id), all.map((d) => d.id).sort().reverse());
    assert.equal(listed.body.has_more, false);
    assert.equal(listed.body.next_cursor, null);

    const first = await api('GET', '/v1/disputes?limit=2');
    assert.equal(first.body.data.length, 2);
    assert.equal(first.body.has_more, true);
    const second = await api('GET', `/v1/disputes?limit=2&cursor=${first.body.next_cursor}`);
    assert.deepEqual([...first.body.data, ...second.body.data].map((d: any) => d.id), listed.body.data.slice(0, 4).map((d: any) => d.id));

    assert.equal((await api('GET', '/v1/disputes?status=needs_response,under_review&limit=100')).body.data.length >= 1, true);
    assert.deepEqual((await api('GET', '/v1/disputes?status=won')).body.data.filter((d: any) => d.payment_id === payments[4].id), []);
    assert.deepEqual((await api('GET', `/v1/disputes?payment_id=${payments[1].id}`)).body.data.map((d: any) => d.id), [all[1].id]);
    assert.deepEqual((await api('GET', '/v1/disputes?from=2099-01-01T00:00:00Z')).body.data, []);
    assert.equal((await api('GET', `/v1/disputes?to=2099-01-01T00:00:00Z&limit=100`)).body.data.length, all.length);
    expectError(await api('GET', '/v1/disputes?status=open'), 422, 'invalid_request_error', 'validation_error', 'status');
    expectError(await api('GET', '/v1/disputes?cursor=nonsense'), 400, 'invalid_request_error', 'invalid_cursor', 'cursor');
  });

  test('evidence is staged, a document uploaded, then submitted: under review, then won with the funds reinstated', async () => {
    const d = await disputeOf(payments[1].id);
    const doc = await api('POST', `/v1/disputes/${d.id}/documents`, { filename: 'proof.png', type: 'image/png', content: PNG.toString('base64') });
    assert.equal(doc.status, 201, JSON.stringify(doc.body));
    assert.match(doc.body.id, /^dpf_/);
    assert.deepEqual([doc.body.object, doc.body.filename, doc.body.type, doc.body.size], ['dispute_document', 'proof.png', 'image/png', PNG.length]);

    const staged = await api('POST', `/v1/disputes/${d.id}/evidence`, {
      product_description: 'A lamp', shipping_carrier: 'DHL', shipping_tracking_number: 'JD014600003828374920', documents: [doc.body.id],
    });
    assert.equal(staged.status, 200, JSON.stringify(staged.body));
    assert.equal(staged.body.status, 'needs_response');
    assert.equal(staged.body.evidence_submitted_at, null);
    assert.deepEqual(
      [staged.body.evidence.product_description, staged.body.evidence.shipping_tracking_number, staged.body.evidence.documents],
      ['A lamp', 'JD014600003828374920', [doc.body.id]],
    );
    assert.deepEqual(staged.body.documents.map((x: any) => x.id), [doc.body.id]);

    const submitted = await api('POST', `/v1/disputes/${d.id}/evidence`, { refund_policy: '30 days', submit: true });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    assert.equal(submitted.body.status, 'under_review');
    assert.match(submitted.body.evidence_submitted_at, ISO_TIMESTAMP);
    assert.equal(submitted.body.evidence.product_description, 'A lamp', 'fields not given stay staged');
    expectError(await api('POST', `/v1/disputes/${d.id}/evidence`, { submit: true }), 409, 'state_error', 'invalid_state_transition', 'id');

    const won = await statusOf(d.id, 'won');
    assert.equal(won.funds_withdrawn, false);
    const moved = await stack.query(
      `SELECT payload->'data'->'object'->>'kind' AS kind, (payload->'data'->'object'->>'amount')::int AS amount
       FROM payments.outbox WHERE type = 'internal.dispute.funds_moved' AND payload->'data'->'object'->>'dispute_id' = $1 ORDER BY created_at`,
      [d.id],
    );
    assert.deepEqual(moved.rows, [{ kind: 'withdrawal', amount: 2501 }, { kind: 'reinstatement', amount: 2501 }]);
    const payment = (await api('GET', `/v1/payments/${payments[1].id}`)).body;
    assert.equal(payment.disputes[0].status, 'won');
  });

  test('evidence without a tracking number loses; the funds stay withdrawn', async () => {
    const d = await disputeOf(payments[2].id);
    const submitted = await api('POST', `/v1/disputes/${d.id}/evidence`, { uncategorized_text: 'The customer used the lamp.', submit: true });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const lost = await statusOf(d.id, 'lost');
    assert.equal(lost.funds_withdrawn, true);
  });

  test('accept closes it as accepted, once; a closed dispute refuses evidence and accept with 409', async () => {
    const d = await disputeOf(payments[3].id);
    const keyed = { key, headers: { 'idempotency-key': `accept-${d.id}` } };
    const accepted = await request(stack.baseUrl, 'POST', `/v1/disputes/${d.id}/accept`, keyed);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal(accepted.body.status, 'accepted');
    assert.equal(accepted.body.funds_withdrawn, true, 'accepting reinstates nothing');
    // A retry with its Idempotency-Key gets the same answer; a new request is refused.
    const retried = await request(stack.baseUrl, 'POST', `/v1/disputes/${d.id}/accept`, keyed);
    assert.deepEqual([retried.status, retried.body], [200, accepted.body]);
    expectError(await api('POST', `/v1/disputes/${d.id}/accept`), 409, 'state_error', 'invalid_state_transition', 'id');
    expectError(await api('POST', `/v1/disputes/${d.id}/evidence`, { uncategorized_text: 'late' }), 409, 'state_error', 'invalid_state_transition', 'id');
    expectError(
      await api('POST', `/v1/disputes/${d.id}/documents`, { filename: 'a.png', type: 'image/png', content: PNG.toString('base64') }),
      409, 'state_error', 'invalid_state_transition', 'id',
    );
    const kinds = await stack.query(
      `SELECT count(*)::int AS n FROM payments.dispute_fund_movements WHERE dispute_id = $1`, [d.id],
    );
    assert.equal(kinds.rows[0].n, 1, 'only the withdrawal');
  });

  test('a card number in evidence is refused, and nothing is staged', async () => {
    const d = await disputeOf(payments[4].id);
    expectError(
      await api('POST', `/v1/disputes/${d.id}/evidence`, { uncategorized_text: 'paid with 4242 4242 4242 4242 on tracking' }),
      422, 'invalid_request_error', 'card_data_not_accepted', 'uncategorized_text',
    );
    assert.equal((await api('GET', `/v1/disputes/${d.id}`)).body.evidence.uncategorized_text, null);
    expectError(await api('POST', `/v1/disputes/${d.id}/evidence`, { uncategorized_text: 'x'.repeat(20_001) }), 422,
      'invalid_request_error', 'validation_error', 'uncategorized_text');
  });

  test('uploads are bounded: type, bytes of that type, 4 MiB decoded, the route\'s body limit', async () => {
    const d = await disputeOf(payments[4].id);
    const upload = (body: unknown) => api('POST', `/v1/disputes/${d.id}/documents`, body);
    expectError(await upload({ filename: 'a.gif', type: 'image/gif', content: PNG.toString('base64') }), 422, 'invalid_request_error', 'validation_error', 'type');
    expectError(await upload({ filename: 'a.pdf', type: 'application/pdf', content: PNG.toString('base64') }), 422, 'invalid_request_error', 'validation_error', 'content');
    const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(4 * 1024 * 1024 - 8, 0x20)]);
    assert.equal(big.length, 4 * 1024 * 1024 + 1);
    expectError(await upload({ filename: 'big.pdf', type: 'application/pdf', content: big.toString('base64') }), 422, 'invalid_request_error', 'validation_error', 'content');
    const fits = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(4 * 1024 * 1024 - 9, 0x20)]);
    const ok = await upload({ filename: 'max.pdf', type: 'application/pdf', content: fits.toString('base64') });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.size, 4 * 1024 * 1024);
    const tooLarge = await request(stack.baseUrl, 'POST', `/v1/disputes/${d.id}/documents`, {
      key, body: { filename: 'x.pdf', type: 'application/pdf', content: 'A'.repeat(7 * 1024 * 1024) },
    });
    assert.equal(tooLarge.status, 413);
    // Every other route keeps the 64 KiB limit.
    const evidence = await api('POST', `/v1/disputes/${d.id}/evidence`, { product_description: 'y'.repeat(70 * 1024) });
    assert.equal(evidence.status, 413);
    const stored = await stack.query(`SELECT count(*)::int AS n FROM payments.dispute_documents WHERE dispute_id = $1`, [d.id]);
    assert.equal(stored.rows[0].n, 1);
  });

  test('the endpoint receives dispute.created, .updated and .closed, signed', async () => {
    const won = await disputeOf(payments[1].id);
    await statusOf(won.id, 'won');
    const got = await eventually('the won dispute\'s events', async () => {
      const mine = receiver.received.map((r) => ({ r, e: JSON.parse(r.body) })).filter(({ e }) => e.data.object.id === won.id);
      return mine.some(({ e }) => e.type === 'dispute.closed') ? mine : undefined;
    });
    for (const { r } of got) assert.ok(contractSignatureValid(r.body, r.headers['svc-signature'] as string, secret));
    const types = got.map(({ e }) => e.type);
    assert.ok(types.includes('dispute.created'));
    assert.ok(types.includes('dispute.updated'));
    const closed = got.find(({ e }) => e.type === 'dispute.closed')!.e;
    assert.deepEqual([closed.data.object.status, closed.data.object.funds_withdrawn], ['won', false]);
    const events = await api('GET', '/v1/events?type=dispute.closed');
    assert.ok(events.body.data.some((e: any) => e.data.object.id === won.id));
  });
});
