import assert from 'node:assert/strict';
import { test } from 'node:test';
import { feeFor } from '../../contract/index.js';
import { cancel, capture, captureFee, expireAuthorization } from './lifecycle.js';
import type { AttemptRecord, PaymentRecord } from './model.js';

// What a payment's fee is after capture, cancel and expiry (docs/ledger.md, "Fees and nets").

const AT = new Date('2025-01-02T03:04:05.000Z');
/** Demo Beta's pricing: 20 + 2.5%; its quote for 5000 is 145. */
const beta = { feeFixed: 20n, feeBps: 250 };
const held = (pricing: { feeFixed: bigint | null; feeBps: number | null } = beta): AttemptRecord =>
  ({ id: 'att_1', status: 'authorized', outcome: 'success', feeAmount: 145n, ...pricing, updatedAt: new Date(0) }) as AttemptRecord;
const authorized = (attempt = held()): PaymentRecord =>
  ({
    id: 'pay_1', status: 'authorized', amount: 5000n, currency: 'EUR', capturedAmount: 0n, captureMethod: 'manual',
    feeAmount: attempt.feeAmount, attempts: [attempt], updatedAt: new Date(0),
  }) as unknown as PaymentRecord;

test('a partial capture is charged by the one fee formula on the captured amount', () => {
  const p = authorized();
  capture(p, 3000n, AT);
  assert.equal(p.feeAmount, 95n, '20 + 2.5% of 3000');
  assert.equal(p.feeAmount, feeFor(beta, 3000n));
  assert.equal(p.attempts[0].feeAmount, 95n, 'the captured attempt carries the fee charged');
});

test('a full capture keeps the provider\'s quote for exactly that amount', () => {
  const p = authorized();
  capture(p, undefined, AT);
  assert.equal(p.feeAmount, 145n);
  // A licensed provider may quote otherwise than the agreed pricing: its quote stands.
  const quoted = authorized({ ...held(), feeAmount: 40n } as AttemptRecord);
  capture(quoted, 5000n, AT);
  assert.equal(quoted.feeAmount, 40n);
});

test('captureFee: without the pricing (attempts older than it) only the quote is known', () => {
  assert.equal(captureFee(held({ feeFixed: null, feeBps: null }), 5000n, 3000n), 145n);
  assert.equal(captureFee(held(), 5000n, 1n), 20n, 'the fixed part on any capture');
});

test('a cancelled or expired authorization shows no fee, on the payment or its attempt', () => {
  for (const end of [(p: PaymentRecord) => cancel(p, undefined, AT), (p: PaymentRecord) => expireAuthorization(p, 168, AT)]) {
    const p = authorized();
    end(p);
    assert.equal(p.status, 'cancelled');
    assert.equal(p.feeAmount, 0n);
    assert.equal(p.attempts[0].feeAmount, 0n);
  }
});
