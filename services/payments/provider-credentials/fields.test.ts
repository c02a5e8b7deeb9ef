import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkedValues } from './fields.js';

// What a connect must carry per provider and mode, before anything is stored.

const adyen = { api_key: 'AQE…', merchant_account: 'ShopEU', hmac_key: '44782DEF' };

test('a live Adyen account needs its live URL prefix, unless it is pointed at another host', () => {
  assert.throws(() => checkedValues('adyen', 'live', adyen), (err: any) => err.options.param === 'live_url_prefix');
  assert.equal(checkedValues('adyen', 'live', { ...adyen, live_url_prefix: '1797a841fbb37ca7-ShopEU' }).live_url_prefix,
    '1797a841fbb37ca7-ShopEU');
  assert.ok(checkedValues('adyen', 'live', { ...adyen, api_base_url: 'http://127.0.0.1:9' }));
  assert.ok(checkedValues('adyen', 'test', adyen), 'the TEST host needs no prefix');
});

test('Adyen notification basic auth can be stored; an unknown field is refused by name', () => {
  const values = checkedValues('adyen', 'test', { ...adyen, basic_auth_user: 'svc', basic_auth_password: 'p4ss' });
  assert.equal(values.basic_auth_user, 'svc');
  assert.throws(() => checkedValues('adyen', 'test', { ...adyen, basic_auth: 'x' }), (err: any) => err.options.param === 'basic_auth');
});
