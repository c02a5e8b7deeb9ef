import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deploymentUrl } from './docs.js';

test('servers: PUBLIC_BASE_URL when set, else the listening address with wildcards read as loopback', () => {
  const at = (address: string, family = 'IPv4') => ({ address, family, port: 8080 });
  assert.equal(deploymentUrl('https://pay.example.com', at('0.0.0.0')), 'https://pay.example.com');
  assert.equal(deploymentUrl(undefined, at('127.0.0.1')), 'http://127.0.0.1:8080');
  assert.equal(deploymentUrl(undefined, at('0.0.0.0')), 'http://127.0.0.1:8080');
  assert.equal(deploymentUrl(undefined, at('::', 'IPv6')), 'http://[::1]:8080');
  assert.equal(deploymentUrl(undefined, at('fd00::5', 'IPv6')), 'http://[fd00::5]:8080');
  assert.equal(deploymentUrl(undefined, null), '/', 'not listening yet: relative to wherever it is read');
});
