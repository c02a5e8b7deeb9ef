import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import pg from 'pg';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { fromConnectError, MAX_EVENT_BYTES } from '../services/shared/index.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

// Internal services call the parts over gRPC without the gateway: the parts refuse card data,
// oversized metadata and oversized requests themselves, and store nothing of them.

let stack: TestStack;
let db: pg.Pool;
let payments: Client<typeof PaymentsService>;
let payouts: Client<typeof PayoutsService>;
let scope: { merchantId: string; projectId: string; mode: string };

before(async () => {
  stack = await startTestStack();
  db = new pg.Pool({ connectionString: stack.db.url, max: 2 });
  const m = await stack.newMerchantKey('test');
  scope = { merchantId: m.merchantId, projectId: m.projectId, mode: 'test' };
  payments = createClient(PaymentsService, createGrpcTransport({ baseUrl: stack.serviceUrls.payments }));
  payouts = createClient(PayoutsService, createGrpcTransport({ baseUrl: stack.serviceUrls.payouts }));
});
after(async () => {
  await db?.end();
  await stack?.close();
});

const refused = (call: Promise<unknown>) => call.then(() => assert.fail('accepted'), (err: unknown) => fromConnectError(err));
const stored = async (reference: string) =>
  (await db.query('SELECT count(*)::int AS n FROM payments.payments WHERE reference = $1', [reference])).rows[0].n;

test('payments and payouts refuse card data and oversized metadata from internal gRPC callers, storing nothing', async () => {
  const reference = `order_${randomUUID()}`;
  const payment = (extra: Record<string, unknown>) => payments.createPayment({
    scope, amount: 1000n, currency: 'EUR', paymentMethod: { type: 'card' }, reference, metadata: {}, ...extra,
  });
  const inText = await refused(payment({ description: 'Card 4242 4242 4242 4242 exp 12/29' }));
  assert.deepEqual([inText.code, inText.options.param], ['card_data_not_accepted', 'description']);
  const inMetadata = await refused(payment({ metadata: { note: 'card:4242424242424242' } }));
  assert.deepEqual([inMetadata.code, inMetadata.options.param], ['card_data_not_accepted', 'metadata.note']);
  const tooMany = await refused(payment({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }));
  assert.deepEqual([tooMany.code, tooMany.options.param], ['validation_error', 'metadata']);
  const nested = await refused(payment({ metadata: { deep: { a: 'b' } } }));
  assert.deepEqual([nested.code, nested.options.param], ['validation_error', 'metadata']);
  const huge = await payment({ description: 'x'.repeat(MAX_EVENT_BYTES + 1) }).then(() => assert.fail('accepted'), (e) => e);
  assert.equal(ConnectError.from(huge).code, Code.ResourceExhausted, 'a request bigger than any event may be is not read');
  assert.equal(await stored(reference), 0);

  const payout = await refused(payouts.createPayout({
    scope, amount: 100n, currency: 'EUR', metadata: { pan_holder: '5555 5555 5555 4444' },
    destination: { type: 'bank_account', token: 'ben_1', display: 'DE89 •••• 3000' },
  }));
  assert.deepEqual([payout.code, payout.options.param], ['card_data_not_accepted', 'metadata.pan_holder']);
  assert.equal((await db.query('SELECT count(*)::int AS n FROM payouts.payouts')).rows[0].n, 0);

  const fine = await payment({ description: 'Order 1234-5678, call +44 20 7946 0958', metadata: { order: '1234567' } });
  assert.equal(fine.payment!.reference, reference, 'ordinary numbers still pass');
});
