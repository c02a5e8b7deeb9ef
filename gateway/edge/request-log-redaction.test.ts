import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainError } from '../../services/contract/errors.js';
import { MESSAGE_WITHHELD, PATH_WITHHELD, loggedError, loggedPath } from './request-log-redaction.js';

test('a path keeps no query and no card number', () => {
  assert.equal(loggedPath('/v1/payments/pay_123?expand=x&secret=y'), '/v1/payments/pay_123');
  assert.equal(loggedPath('/v1/payments/4242424242424242'), PATH_WITHHELD);
  assert.equal(loggedPath('/v1/payments/4242%204242%204242%204242'), PATH_WITHHELD);
});

test('an error answer keeps code, message and param, with secrets cut to their prefix', () => {
  const kept = loggedError(new DomainError('validation_error', 'providers: "svc_sk_test_AbC123xyz" is not a provider', { param: 'providers' }));
  assert.deepEqual(kept, { code: 'validation_error', message: 'providers: "svc_sk_test_[redacted]" is not a provider', param: 'providers' });
  for (const secret of ['whsec_0123456789abcdef', 'sk_live_51Habcdef', 'Bearer abc.def-ghi.jkl-mno', 'svc_op_AAAAAAAAAA']) {
    assert.doesNotMatch(loggedError(new DomainError('validation_error', `bad ${secret} here`)).message, new RegExp(secret.slice(-6)), secret);
  }
  assert.equal(loggedError(new DomainError('resource_not_found', 'No such payment')).param, null);
});

test('a message or param holding a card number is withheld whole; details are never kept', () => {
  const err = new DomainError('validation_error', 'reference 4242 4242 4242 4242 is too long', {
    param: 'metadata.4242424242424242', details: { value: '4242424242424242' },
  });
  const kept = loggedError(err);
  assert.equal(kept.message, MESSAGE_WITHHELD);
  assert.equal(kept.param, '(withheld)');
  assert.doesNotMatch(JSON.stringify(kept), /4242/);
});

test('ids and ordinary words are kept as they are', () => {
  const message = 'No payment pay_01JABCDEF0123456789 in test mode; Basic auth and a test_scenario of success';
  assert.equal(loggedError(new DomainError('resource_not_found', message)).message, message);
});
