import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { withCredential } from '../services/platform/internal-callers.js';
import { projectPath } from '../services/platform/paths.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

// An internal service written against the .proto files with nothing but @grpc/grpc-js and
// @grpc/proto-loader (no generated code, no Connect) sees what a Connect client sees: list calls
// without a limit (proto3 sends 0) get the default page, and error messages read as written.

let stack: TestStack;
let scope: { merchantId: string; projectId: string; mode: string };
let stock: grpc.Client & Record<string, Function>;

function loadService(file: string, path: string[]): grpc.ServiceClientConstructor {
  const definition = protoLoader.loadSync(file, { includeDirs: [projectPath('proto')], longs: String, defaults: true });
  let node: any = grpc.loadPackageDefinition(definition);
  for (const name of path) node = node[name];
  return node as grpc.ServiceClientConstructor;
}

/** One unary call of the stock client with its credential: its answer, or the grpc-js error it ends with. */
function call(method: string, request: object): Promise<{ err: grpc.ServiceError | null; res: any }> {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${stack.internalToken}`);
  return new Promise((resolve) =>
    stock[method](request, metadata, (err: grpc.ServiceError | null, res: any) => resolve({ err, res })));
}

async function payment(): Promise<any> {
  const { err, res } = await call('createPayment', {
    scope, amount: '1000', currency: 'EUR', paymentMethod: { type: 'card' }, captureMethod: 'automatic',
    testScenario: 'success',
  });
  assert.equal(err, null, err?.details);
  return res.payment;
}

before(async () => {
  stack = await startTestStack();
  const m = await stack.newMerchantKey('test');
  scope = { merchantId: m.merchantId, projectId: m.projectId, mode: 'test' };
  const Payments = loadService('svc/payments/v1/payments.proto', ['svc', 'payments', 'v1', 'PaymentsService']);
  stock = new Payments(stack.serviceUrls.payments.replace(/^http:\/\//, ''), grpc.credentials.createInsecure()) as never;
});
after(async () => {
  stock?.close();
  await stack?.close();
});

test('a stock grpc-js client listing without a limit (0 in proto3) gets a page of 50, as REST does', async () => {
  for (let i = 0; i < 51; i += 10) await Promise.all(Array.from({ length: Math.min(10, 51 - i) }, payment));
  const { err, res } = await call('listPayments', { scope });
  assert.equal(err, null, err?.details);
  assert.equal(res.payments.length, 50);
  assert.equal(res.hasMore, true);

  const small = await call('listPayments', { scope, limit: 3 });
  assert.deepEqual([small.res.payments.length, small.res.hasMore], [3, true]);
  const tooMany = await call('listPayments', { scope, limit: 201 });
  assert.equal(tooMany.err?.code, grpc.status.INVALID_ARGUMENT);
  assert.equal(tooMany.err?.details, 'limit must be between 1 and 200');
});

test('a stock grpc-js client reads an error message as written, the same as a Connect client', async () => {
  const paid = await payment();
  const { err } = await call('cancelPayment', { scope, id: paid.id });
  const expected = `Payment ${paid.id} is successful: only a created, pending or authorized payment, or one awaiting ` +
    'the customer, can be cancelled; not one being sent to a provider.';
  assert.equal(err?.code, grpc.status.FAILED_PRECONDITION);
  assert.equal(err?.details, expected, 'no percent-encoding (%3A, %2C) reaches the caller');

  const connect = createClient(PaymentsService,
    withCredential(createGrpcTransport({ baseUrl: stack.serviceUrls.payments }), stack.internalToken));
  const seen = await connect.cancelPayment({ scope, id: paid.id }).then(() => assert.fail('accepted'), (e) => ConnectError.from(e));
  assert.equal(seen.rawMessage, expected);
});
