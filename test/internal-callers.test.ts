import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { newInternalToken, sha256 } from '../services/platform/internal-callers.js';
import { projectPath } from '../services/platform/paths.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { fromConnectError, MAX_EVENT_BYTES } from '../services/contract/index.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

// Internal services call the parts over gRPC without the gateway. Each presents its credential
// (authorization: Bearer <token>): the platform's INTERNAL_TOKEN acts for every project, a caller
// listed in INTERNAL_CALLERS only for its own. The parts also refuse card data, oversized metadata
// and oversized requests themselves, and store nothing of them.

let stack: TestStack;
let payments: Client<typeof PaymentsService>;
let payouts: Client<typeof PayoutsService>;
let scope: { merchantId: string; projectId: string; mode: string };
/** A reporting service's token, entitled to one project the gateway never made (the parts take scope as given). */
const reportingToken = newInternalToken();
const reportingScope = { merchantId: 'mer_reporting', projectId: 'prj_reporting', mode: 'test' };

before(async () => {
  stack = await startTestStack({ env: { INTERNAL_CALLERS: JSON.stringify({
    reporting: { token_sha256: sha256(reportingToken).toString('hex'), projects: [reportingScope.projectId] },
  }) } });
  const m = await stack.newMerchantKey('test');
  scope = { merchantId: m.merchantId, projectId: m.projectId, mode: 'test' };
  payments = createClient(PaymentsService, createPeerTransport(stack.serviceUrls.payments, stack.internalToken));
  payouts = createClient(PayoutsService, createPeerTransport(stack.serviceUrls.payouts, stack.internalToken));
});
after(async () => {
  await stack?.close();
});

/** A client written with nothing but @grpc/grpc-js and the .proto files, as the README shows. */
function stockClient(file: string, path: string[], url: string): grpc.Client & Record<string, Function> {
  const definition = protoLoader.loadSync(file, { includeDirs: [projectPath('proto')], longs: String, defaults: true });
  let node: any = grpc.loadPackageDefinition(definition);
  for (const name of path) node = node[name];
  return new node(url.replace(/^http:\/\//, ''), grpc.credentials.createInsecure());
}

/** One unary call with the given token (none: no authorization metadata at all). */
function callWith(client: grpc.Client & Record<string, Function>, method: string, request: object, token?: string) {
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  return new Promise<{ err: grpc.ServiceError | null; res: any }>((resolve) =>
    client[method](request, metadata, (err: grpc.ServiceError | null, res: any) => resolve({ err, res })));
}

test('a stock grpc-js client without a valid credential is UNAUTHENTICATED; health checks need none', async () => {
  const stock = stockClient('svc/payments/v1/payments.proto', ['svc', 'payments', 'v1', 'PaymentsService'], stack.serviceUrls.payments);
  const health = stockClient('grpc/health/v1/health.proto', ['grpc', 'health', 'v1', 'Health'], stack.serviceUrls.payments);
  try {
    for (const token of [undefined, 'wrong', `${stack.internalToken}x`, '']) {
      const { err } = await callWith(stock, 'listPayments', { scope }, token);
      assert.equal(err?.code, grpc.status.UNAUTHENTICATED, `token ${JSON.stringify(token)}`);
      assert.match(err!.details, /internal credential is required/);
    }
    const checked = await callWith(health, 'check', { service: '' });
    assert.equal(checked.err, null);
    assert.equal(checked.res.status, 1, 'SERVING');
  } finally {
    stock.close();
    health.close();
  }
});

test('a caller listed for some projects acts for those only; the platform token for any', async () => {
  const stock = stockClient('svc/payments/v1/payments.proto', ['svc', 'payments', 'v1', 'PaymentsService'], stack.serviceUrls.payments);
  const ledger = stockClient('svc/ledger/v1/ledger.proto', ['svc', 'ledger', 'v1', 'LedgerService'], stack.serviceUrls.ledger);
  try {
    const other = await callWith(stock, 'listPayments', { scope }, reportingToken);
    assert.equal(other.err?.code, grpc.status.PERMISSION_DENIED);
    assert.equal(other.err?.details, `internal caller reporting may not act for project ${scope.projectId}`);
    const unscoped = await callWith(ledger, 'runSettlementCycle', {}, reportingToken);
    assert.equal(unscoped.err?.code, grpc.status.PERMISSION_DENIED, 'a request for no one project is the platform\'s');

    const created = await callWith(stock, 'createPayment', {
      scope: reportingScope, amount: '1000', currency: 'EUR', paymentMethod: { type: 'card' }, testScenario: 'success',
    }, reportingToken);
    assert.equal(created.err, null, created.err?.details);
    const own = await callWith(stock, 'listPayments', { scope: reportingScope }, reportingToken);
    assert.equal(own.err, null, own.err?.details);
    assert.deepEqual(own.res.payments.map((p: any) => p.id), [created.res.payment.id]);

    const platform = await callWith(stock, 'listPayments', { scope }, stack.internalToken);
    assert.equal(platform.err, null, platform.err?.details);
  } finally {
    stock.close();
    ledger.close();
  }
});

const refused = (call: Promise<unknown>) => call.then(() => assert.fail('accepted'), (err: unknown) => fromConnectError(err));
const stored = async (reference: string) =>
  (await stack.query('SELECT count(*)::int AS n FROM payments.payments WHERE reference = $1', [reference])).rows[0].n;

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
  assert.equal((await stack.query('SELECT count(*)::int AS n FROM payouts.payouts')).rows[0].n, 0);

  const fine = await payment({ description: 'Order 1234-5678, call +44 20 7946 0958', metadata: { order: '1234567' } });
  assert.equal(fine.payment!.reference, reference, 'ordinary numbers still pass');
});
