import assert from 'node:assert/strict';
import { test } from 'node:test';
import { providersByCode } from '../../connectors/provider-definition.js';
import { PROVIDERS } from '../../connectors/providers.js';
import { checkedValues } from './fields.js';

// What a connect must carry per provider and mode, before anything is stored.

const adyen = { api_key: 'AQE…', merchant_account: 'ShopEU', hmac_key: '44782DEF' };
const stripe = { secret_key: 'sk_test_x', webhook_secret: 'whsec_x' };
const providers = providersByCode(PROVIDERS);
const none: string[] = [];
const standIn = ['http://127.0.0.1:9'];

test('a live Adyen account needs its live URL prefix, unless it is pointed at another host', () => {
  assert.throws(() => checkedValues(providers, 'adyen', 'live', adyen, none), (err: any) => err.options.param === 'live_url_prefix');
  assert.equal(checkedValues(providers, 'adyen', 'live', { ...adyen, live_url_prefix: '1797a841fbb37ca7-ShopEU' }, none).live_url_prefix,
    '1797a841fbb37ca7-ShopEU');
  assert.ok(checkedValues(providers, 'adyen', 'live', { ...adyen, api_base_url: 'http://127.0.0.1:9' }, standIn));
  assert.ok(checkedValues(providers, 'adyen', 'test', adyen, none), 'the TEST host needs no prefix');
});

test('a field the provider builds a host from has its documented shape: Adyen\'s live URL prefix, Checkout.com\'s subdomain', () => {
  const checkout = { secret_key: 'sk_sbox_x', processing_channel_id: 'pc_x', webhook_signature_key: 'k' };
  for (const prefix of ['127.0.0.1:8080/x?', 'localhost:1/#', '[::1]:1/x?', 'evil.example.com/x?', 'a@b', 'shop', '-shop', 'a'.repeat(30) + '-' + 'b'.repeat(30)]) {
    assert.throws(() => checkedValues(providers, 'adyen', 'live', { ...adyen, live_url_prefix: prefix }, none),
      (err: any) => err.options.param === 'live_url_prefix' && !err.message.includes(prefix), prefix);
  }
  for (const prefix of ['1797a841fbb37ca7-AdyenDemo', 'e1d2c3b4a5-Acme-Shop']) {
    assert.equal(checkedValues(providers, 'adyen', 'live', { ...adyen, live_url_prefix: prefix }, none).live_url_prefix, prefix);
  }
  for (const subdomain of ['127.0.0.1:8080/x?', 'evil.example.com#', 'ABC', 'a-b', 'pl-']) {
    assert.throws(() => checkedValues(providers, 'checkout', 'test', { ...checkout, subdomain }, none),
      (err: any) => err.options.param === 'subdomain', subdomain);
  }
  for (const subdomain of ['1a2b3c4d', 'pl-1a2b3c4d']) {
    assert.equal(checkedValues(providers, 'checkout', 'test', { ...checkout, subdomain }, none).subdomain, subdomain);
  }
});

test('Adyen notification basic auth can be stored; an unknown field is refused by name', () => {
  const values = checkedValues(providers, 'adyen', 'test', { ...adyen, basic_auth_user: 'svc', basic_auth_password: 'p4ss' }, none);
  assert.equal(values.basic_auth_user, 'svc');
  assert.throws(() => checkedValues(providers, 'adyen', 'test', { ...adyen, basic_auth: 'x' }, none), (err: any) => err.options.param === 'basic_auth');
});

test('api_base_url: an operator-listed origin as written, anything else public https in both modes', () => {
  const refused = (url: string, mode: string, allowlist = none) => assert.throws(
    () => checkedValues(providers, 'stripe', mode, { ...stripe, secret_key: `sk_${mode}_x`, api_base_url: url }, allowlist),
    (err: any) => err.options.param === 'api_base_url' && /PROVIDER_BASE_URL_ALLOWLIST/.test(err.message), url,
  );
  for (const mode of ['test', 'live']) {
    refused('http://127.0.0.1:9/any/path?', mode);
    refused('https://127.0.0.1:9/', mode);
    refused('https://localhost/', mode);
    refused('http://sandbox.example.com/', mode);
    refused('https://10.0.0.7/', mode);
    refused('https://169.254.169.254/latest/meta-data/', mode);
    refused('https://metadata.google.internal/', mode);
    refused('https://user:pw@sandbox.example.com/', mode);
    refused('ftp://sandbox.example.com/', mode);
    refused('not a url', mode);
    refused('http://127.0.0.1:10/', mode, standIn);
    assert.equal(checkedValues(providers, 'stripe', mode, { ...stripe, secret_key: `sk_${mode}_x`, api_base_url: 'https://sandbox.example.com/' }, none)
      .api_base_url, 'https://sandbox.example.com/');
    assert.ok(checkedValues(providers, 'stripe', mode, { ...stripe, secret_key: `sk_${mode}_x`, api_base_url: 'http://127.0.0.1:9/v1' }, standIn));
  }
});
