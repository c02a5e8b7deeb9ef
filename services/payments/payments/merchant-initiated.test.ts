import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainError } from '../../contract/index.js';
import type { AuthorizeResult } from '../../connectors/index.js';
import type { PaymentMethodRecord } from '../payment-methods/index.js';
import { keptNetworkTransactionId, merchantInitiatedOf } from './merchant-initiated.js';
import type { AttemptRecord, PaymentRecord } from './model.js';
import { providerCall } from './provider-call.js';
import type { RowWrite } from '../../platform/row-writes.js';

const method = (networkTransactionId: string | null) => ({ id: 'pm_1', networkTransactionId }) as PaymentMethodRecord;

test('a merchant-initiated payment takes the stored method\'s network transaction id, or is refused on merchant_initiated', () => {
  assert.deepEqual(merchantInitiatedOf({ merchantInitiated: true }, method('4832')), { networkTransactionId: '4832' });
  assert.equal(merchantInitiatedOf({ merchantInitiated: false }, method('4832')), undefined);
  assert.equal(merchantInitiatedOf({}, undefined), undefined);
  for (const stored of [undefined, method(null)]) {
    assert.throws(() => merchantInitiatedOf({ merchantInitiated: true }, stored), (err: unknown) => {
      assert.ok(err instanceof DomainError);
      assert.equal(err.code, 'validation_error');
      assert.equal(err.options.param, 'merchant_initiated');
      return true;
    });
  }
});

test('only a successful customer-present payment of a stored method keeps its network transaction id', () => {
  const scope = { merchantId: 'mer_1', projectId: 'prj_1', mode: 'live' } as any;
  const methods = { networkTransactionIdRow: (_s: unknown, id: string, ntid: string) => ({ values: [id, ntid] }) as unknown as RowWrite };
  const payment = { paymentMethodId: 'pm_1', mitNetworkTransactionId: null };
  const ok = { outcome: 'success', networkTransactionId: '4832' } as AuthorizeResult;
  assert.deepEqual(keptNetworkTransactionId(methods, scope, payment, ok), [{ values: ['pm_1', '4832'] }]);
  assert.deepEqual(keptNetworkTransactionId(methods, scope, { ...payment, mitNetworkTransactionId: '1' }, ok), []);
  assert.deepEqual(keptNetworkTransactionId(methods, scope, { ...payment, paymentMethodId: null }, ok), []);
  assert.deepEqual(keptNetworkTransactionId(methods, scope, payment, { ...ok, outcome: 'soft_decline' }), []);
  assert.deepEqual(keptNetworkTransactionId(methods, scope, payment, { ...ok, networkTransactionId: undefined }), []);
});

test('every call about a merchant-initiated payment, a later status query included, carries the id it was made with', () => {
  const attempt = { id: 'att_1', attemptNumber: 1, providerCode: 'adyen', providerAccountId: 'pac_1' } as AttemptRecord;
  const payment = { id: 'pay_1', amount: 990n, currency: 'EUR', paymentMethodType: 'card', captureMethod: 'automatic' } as PaymentRecord;
  assert.deepEqual(providerCall({ ...payment, mitNetworkTransactionId: '4832' }, attempt).merchantInitiated, { networkTransactionId: '4832' });
  assert.equal(providerCall({ ...payment, mitNetworkTransactionId: null }, attempt).merchantInitiated, undefined);
});
