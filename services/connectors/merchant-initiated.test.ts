// How each card connector marks a merchant-initiated payment in its own request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paymentParams } from './adyen/connector.js';
import { forwardedCard } from './adyen/forwarded.js';
import { intentParams } from './stripe/connector.js';
import type { AuthorizeRequest } from './types.js';

const EMPTY = { number: '', expiryMonth: '', expiryYear: '', cvc: '', holderName: '' };

function request(over: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    account: { providerCode: 'adyen', id: 'pac_1', feeFixed: 0n, feeBps: 0, latencyMs: 0 },
    paymentId: 'pay_1', attemptId: 'att_1', attemptNumber: 1, amount: 990n, currency: 'EUR', methodType: 'card',
    captureMethod: 'automatic', paymentMethodToken: 'SHOPPER:8415', signal: new AbortController().signal, ...over,
  };
}

const mit = { merchantInitiated: { networkTransactionId: '483297461032178' } };

test('Adyen: a merchant-initiated payment of a stored token is ContAuth, Subscription, with networkTxReference', () => {
  const params = paymentParams(request(mit), 'AcmeECOM') as any;
  assert.equal(params.shopperInteraction, 'ContAuth');
  assert.equal(params.recurringProcessingModel, 'Subscription');
  assert.deepEqual(params.additionalData, { networkTxReference: '483297461032178' });
  assert.equal(params.captureDelayHours, 0);
  assert.equal(params.paymentMethod.storedPaymentMethodId, '8415');
  // A stored token paid with the customer present stays a card-on-file payment without the scheme id.
  const present = paymentParams(request(), 'AcmeECOM') as any;
  assert.equal(present.recurringProcessingModel, 'CardOnFile');
  assert.equal(present.additionalData, undefined);
});

test('Adyen: a held merchant-initiated payment keeps manualCapture beside networkTxReference', () => {
  const params = paymentParams(request({ ...mit, captureMethod: 'manual' }), 'AcmeECOM') as any;
  assert.deepEqual(params.additionalData, { manualCapture: 'true', networkTxReference: '483297461032178' });
  assert.equal(params.captureDelayHours, undefined);
});

test('Adyen: a forwarded card carries no CVC field when the customer is absent', () => {
  const req = request({ ...mit, forwarding: { vault: 'stripe', vaultAccountId: 'pac_v' } });
  const params = paymentParams(req, 'AcmeECOM', forwardedCard(EMPTY, req)) as any;
  assert.deepEqual(params.paymentMethod, { type: 'scheme', number: '', expiryMonth: '', expiryYear: '', holderName: '' });
  assert.equal(params.shopperInteraction, 'ContAuth');
  assert.deepEqual(forwardedCard(EMPTY, request()).paymentMethod, { type: 'scheme', ...EMPTY });
});

test('Stripe: a merchant-initiated PaymentIntent is off_session; a customer-present one is not', () => {
  assert.equal(intentParams(request({ ...mit, paymentMethodToken: 'pm_1' }))!.off_session, true);
  assert.equal(intentParams(request({ paymentMethodToken: 'pm_1' }))!.off_session, undefined);
});
