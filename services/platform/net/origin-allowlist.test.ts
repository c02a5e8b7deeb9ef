import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config.js';
import { listedOrigin, parseOriginEntry } from './origin-allowlist.js';

test('PROVIDER_BASE_URL_ALLOWLIST holds origins, a host with any port, nothing else', () => {
  assert.deepEqual(loadConfig({}).providerBaseUrlAllowlist, []);
  assert.deepEqual(
    loadConfig({ PROVIDER_BASE_URL_ALLOWLIST: ' https://Proxy.Example.net:443/ , http://127.0.0.1:* ,http://[::1]:4010' })
      .providerBaseUrlAllowlist,
    ['https://proxy.example.net', 'http://127.0.0.1:*', 'http://[::1]:4010'],
  );
  for (const bad of ['https://proxy.example.net/v1', 'https://u:p@proxy.example.net', 'ftp://proxy.example.net', 'proxy', 'https://x.example?y=1']) {
    assert.throws(() => loadConfig({ PROVIDER_BASE_URL_ALLOWLIST: bad }), /PROVIDER_BASE_URL_ALLOWLIST/, bad);
    assert.ok('problem' in parseOriginEntry(bad), bad);
  }
});

test('a URL is listed by its exact origin, or by its host under a host with any port', () => {
  const list = ['https://proxy.example.net', 'http://127.0.0.1:*'];
  assert.ok(listedOrigin('https://proxy.example.net/v1/x?y', list));
  assert.ok(listedOrigin('https://proxy.example.net:443/', list));
  assert.ok(listedOrigin('http://127.0.0.1:55123/any', list));
  assert.ok(!listedOrigin('https://proxy.example.net:8443/', list));
  assert.ok(!listedOrigin('http://proxy.example.net/', list));
  assert.ok(!listedOrigin('https://127.0.0.1:55123/', list));
  assert.ok(!listedOrigin('http://127.0.0.1.nip.io:55123/', list));
  assert.ok(!listedOrigin('http://user:pw@127.0.0.1:55123/', ['http://127.0.0.1:55123']));
  assert.ok(!listedOrigin('not a url', list));
  assert.ok(!listedOrigin('https://proxy.example.net', []));
});
