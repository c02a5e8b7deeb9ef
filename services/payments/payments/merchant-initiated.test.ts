import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainError } from '../../contract/index.js';
import type { AuthorizeResult } from '../connectors/index.js';
import type { PaymentMethodRecord } from '../payment-methods/index.js';
import { keptNetworkTransactionId, merchantInitiatedOf } from './merchant-initiated.js';
import type { PaymentRecord } from './model.js';

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
  const methods = { networkTransactionIdStatement: (_s: unknown, id: string, ntid: string) => ({ text: 'UPDATE', values: [id, ntid] }) };
  const payment = { paymentMethodId: 'pm_1' } as PaymentRecord;
  const ok = { outcome: 'success', networkTransactionId: '4832' } as AuthorizeResult;
  assert.deepEqual(keptNetworkTransactionId(methods, scope, payment, ok, undefined), [{ text: 'UPDATE', values: ['pm_1', '4832'] }]);
  assert.deepEqual(keptNetworkTransactionId(methods, scope, payment, ok, { networkTransactionId: '1' }), []);
  assert.deepEqual(keptNetworkTransactionId(methods, scope, { paymentMethodId: null } as PaymentRecord, ok, undefined), []);
  assert.deepEqual(keptNetworkTransactionId(methods, scope, payment, { ...ok, outcome: 'soft_decline' }, undefined), []);
  assert.deepEqual(keptNetworkTransactionId(methods, scope, payment, { ...ok, networkTransactionId: undefined }, undefined), []);
});
