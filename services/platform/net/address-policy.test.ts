import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressProblem, classifyAddress, endpointUrlProblem, type Mode } from './address-policy.js';

const open = { allowLoopbackInTest: true };
const closed = { allowLoopbackInTest: false };

test('addresses are classified, IPv4 carried in IPv6 included', () => {
  const cases: Array<[string, string]> = [
    ['93.184.216.34', 'public'], ['2606:2800:220:1:248:1893:25c8:1946', 'public'],
    ['127.0.0.1', 'loopback'], ['127.9.9.9', 'loopback'], ['::1', 'loopback'], ['[::1]', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'], ['fd12:3456::1', 'private'], ['fc00::1', 'private'],
    ['169.254.1.1', 'link-local'], ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'],
    ['169.254.169.254', 'metadata'], ['fd00:ec2::254', 'metadata'], ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['0.0.0.0', 'reserved'], ['::', 'reserved'], ['224.0.0.1', 'reserved'], ['255.255.255.255', 'reserved'],
    ['ff02::1', 'reserved'], ['2001:db8::1', 'reserved'], ['not-an-ip', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::10.0.0.1', 'private'], ['2002:7f00:1::', 'loopback'], ['::ffff:93.184.216.34', 'public'],
    ['172.32.0.1', 'public'], ['11.0.0.1', 'public'],
  ];
  for (const [address, kind] of cases) assert.equal(classifyAddress(address), kind, address);
});

test('loopback is allowed only in test mode and only while the deployment allows it', () => {
  assert.equal(addressProblem('127.0.0.1', 'test', open), undefined);
  assert.match(addressProblem('127.0.0.1', 'test', closed)!, /loopback/);
  assert.match(addressProblem('::1', 'live', open)!, /loopback/);
  // Test keys are easy to get: every other internal address stays refused in test mode too.
  for (const address of ['10.0.0.1', '169.254.169.254', '192.168.0.10', 'fe80::1']) {
    assert.ok(addressProblem(address, 'test', open), address);
  }
});

test('endpoint URLs: live needs https and a public host; test may use http and loopback', () => {
  const ok: Array<[string, Mode, typeof open]> = [
    ['https://hooks.example.com/svc', 'live', open],
    ['https://93.184.216.34:8443/x?y=1', 'live', open],
    ['http://hooks.example.com/svc', 'test', open],
    ['http://127.0.0.1:3000/hooks', 'test', open],
    ['http://localhost:3000/hooks', 'test', open],
    ['http://[::1]:3000/hooks', 'test', open],
  ];
  for (const [url, mode, policy] of ok) assert.equal(endpointUrlProblem(url, mode, policy), undefined, url);
  const refused: Array<[string, Mode, typeof open, RegExp]> = [
    ['http://hooks.example.com/svc', 'live', open, /https/],
    ['https://127.0.0.1/x', 'live', open, /loopback/],
    ['https://localhost/x', 'live', open, /loopback/],
    ['https://app.localhost/x', 'live', open, /loopback/],
    ['http://127.0.0.1:3000/x', 'test', closed, /loopback/],
    ['https://10.0.0.5/x', 'live', open, /private/],
    ['http://10.0.0.5/x', 'test', open, /private/],
    ['http://169.254.169.254/latest/meta-data/', 'test', open, /metadata/],
    ['https://[fd00:ec2::254]/', 'live', open, /metadata/],
    ['http://metadata.google.internal/computeMetadata/v1/', 'test', open, /metadata/],
    ['https://[::ffff:10.0.0.1]/', 'live', open, /private/],
    ['https://2130706433/', 'live', open, /loopback/],
    ['https://0x7f.1/', 'live', open, /loopback/],
    ['https://payments/hook', 'live', open, /public host/],
    ['https://db.internal/hook', 'live', open, /public host/],
    ['https://user:pass@hooks.example.com/', 'live', open, /credentials/],
    ['https://hooks.example.com/#frag', 'live', open, /fragment/],
    ['ftp://hooks.example.com/', 'test', open, /https/],
    ['not a url', 'test', open, /valid/],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, 'live', open, /2048/],
  ];
  for (const [url, mode, policy, pattern] of refused) {
    assert.match(endpointUrlProblem(url, mode, policy) ?? 'accepted', pattern, url.slice(0, 80));
  }
});

test('a live-grade policy (provider base URLs) applies live rules in test mode and names its subject', () => {
  const provider = { allowLoopbackInTest: true, liveGradeAlways: true, subject: 'provider requests' };
  assert.match(endpointUrlProblem('http://sandbox.example.com/', 'test', provider)!, /https \(provider requests carry credentials\)/);
  assert.match(endpointUrlProblem('https://127.0.0.1:4010/', 'test', provider)!, /loopback address, which provider requests may not reach$/);
  assert.match(endpointUrlProblem('https://localhost/', 'test', provider)!, /provider requests/);
  assert.match(endpointUrlProblem('https://payments/', 'test', provider)!, /public host/);
  assert.match(endpointUrlProblem('https://metadata.google.internal/', 'test', provider)!, /provider requests may not reach/);
  assert.match(addressProblem('127.0.0.1', 'test', provider)!, /provider requests/);
  assert.equal(endpointUrlProblem('https://sandbox.example.com/any/path?', 'test', provider), undefined);
  // Webhooks keep their wording and their test-mode loopback.
  assert.match(addressProblem('10.0.0.1', 'test', open)!, /which webhooks may not reach$/);
  assert.equal(addressProblem('127.0.0.1', 'test', open), undefined);
});
