import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../services/platform/config.js';
import { normaliseEntry } from '../../services/contract/allowlist-entry.js';
import { parseRange, type AddressRange } from '../../services/contract/ip-address.js';
import { clientAddress, isAllowed, trustedProxyRanges } from './ip-allowlist.js';

const none: AddressRange[] = [];

describe('allow-list entries', () => {
  it('normalises exact addresses and ranges to one stored form', () => {
    const cases: [string, string][] = [
      ['203.0.113.7', '203.0.113.7'],
      ['203.0.113.7/32', '203.0.113.7'],
      ['10.0.0.0/8', '10.0.0.0/8'],
      ['10.1.2.3/8', '10.0.0.0/8'], // host bits cleared
      ['10.0.0.0/08', '10.0.0.0/8'],
      ['0.0.0.0/0', '0.0.0.0/0'],
      ['  192.0.2.1 ', '192.0.2.1'],
      ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
      ['2001:0db8::0001/128', '2001:db8::1'],
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // the longer zero run is the one compressed
      ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
      ['2001:db8:1:2:3:4:5:0', '2001:db8:1:2:3:4:5:0'], // a single zero group is not compressed
      ['2001:db8::1/32', '2001:db8::/32'],
      ['::', '::'],
      ['::1', '::1'],
      ['::/0', '::/0'],
      ['::ffff:10.1.2.3', '10.1.2.3'], // mapped IPv4 is stored as IPv4
      ['::FFFF:0a01:0203', '10.1.2.3'],
      ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
      ['::ffff:0:0/96', '0.0.0.0/0'],
      ['::ffff:0:0/95', '::fffe:0:0/95'], // wider than the mapped block: stays IPv6
    ];
    for (const [entry, normal] of cases) assert.equal(normaliseEntry(entry), normal, entry);
  });

  it('refuses anything that is not an address or CIDR range', () => {
    for (const entry of [
      '', ' ', 'localhost', '10.0.0', '10.0.0.256', '010.0.0.1', '10.0.0.1/33', '10.0.0.1/-1', '10.0.0.1/',
      '10.0.0.1/8/8', '10.0.0.1/1234', '10.0.0.1/a', '::1/129', '1::2::3', '1:2:3:4:5:6:7:8:9', 'fe80::1%eth0',
      '[::1]', '10.0.0.1:80', '10.0.0.1 10.0.0.2', '10.0.0.0 /8', '*',
    ]) {
      assert.equal(normaliseEntry(entry), undefined, JSON.stringify(entry));
    }
  });

  it('keeps the prefix length as given', () => {
    assert.deepEqual(parseRange('192.168.1.0/24'), { family: 4, network: 0xc0a80100n, prefix: 24 });
    assert.deepEqual(parseRange('::1'), { family: 6, network: 1n, prefix: 128 });
  });
});

describe('matching an address against a list', () => {
  it('matches exact IPv4 addresses and CIDR edges', () => {
    assert.ok(isAllowed('203.0.113.7', ['203.0.113.7']));
    assert.ok(!isAllowed('203.0.113.8', ['203.0.113.7']));
    assert.ok(isAllowed('203.0.113.7', ['203.0.113.7/32']));
    assert.ok(!isAllowed('203.0.113.6', ['203.0.113.7/32']));
    assert.ok(isAllowed('10.0.0.0', ['10.0.0.0/8']));
    assert.ok(isAllowed('10.255.255.255', ['10.0.0.0/8']));
    assert.ok(!isAllowed('11.0.0.0', ['10.0.0.0/8']));
    assert.ok(!isAllowed('9.255.255.255', ['10.0.0.0/8']));
    assert.ok(isAllowed('192.168.1.127', ['192.168.1.0/25']));
    assert.ok(!isAllowed('192.168.1.128', ['192.168.1.0/25']));
    assert.ok(isAllowed('255.255.255.255', ['0.0.0.0/0']));
    assert.ok(isAllowed('0.0.0.0', ['0.0.0.0/0']));
    assert.ok(!isAllowed('2001:db8::1', ['0.0.0.0/0']), 'an IPv4 range never holds a native IPv6 address');
  });

  it('matches exact IPv6 addresses and CIDR edges', () => {
    assert.ok(isAllowed('2001:db8::1', ['2001:0db8:0000::1']));
    assert.ok(isAllowed('2001:db8::1', ['2001:db8::1/128']));
    assert.ok(!isAllowed('2001:db8::2', ['2001:db8::1/128']));
    assert.ok(isAllowed('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', ['2001:db8::/32']));
    assert.ok(!isAllowed('2001:db9::', ['2001:db8::/32']));
    assert.ok(isAllowed('2001:db8::1', ['::/0']));
    assert.ok(isAllowed('fe80::1', ['fe80::/10']));
    assert.ok(!isAllowed('fec0::1', ['fe80::/10']));
    assert.ok(!isAllowed('::1', ['127.0.0.1']), 'IPv6 loopback is not IPv4 loopback');
  });

  it('treats IPv4-mapped IPv6 as the IPv4 address, both ways', () => {
    // A mapped entry matches the plain IPv4 client...
    assert.ok(isAllowed('10.1.2.3', ['::ffff:10.1.2.3']));
    assert.ok(isAllowed('10.1.2.3', ['::ffff:10.0.0.0/104']));
    assert.ok(!isAllowed('11.1.2.3', ['::ffff:10.0.0.0/104']));
    // ...and a client arriving as a mapped address matches IPv4 entries.
    assert.ok(isAllowed('::ffff:10.1.2.3', ['10.1.2.3']));
    assert.ok(isAllowed('::ffff:10.1.2.3', ['10.0.0.0/8']));
    assert.ok(!isAllowed('::ffff:11.1.2.3', ['10.0.0.0/8']));
    // An IPv6 range wide enough to hold ::ffff:0:0/96 holds every IPv4 client.
    assert.ok(isAllowed('10.1.2.3', ['::/0']));
    assert.ok(isAllowed('10.1.2.3', ['::ffff:0:0/95']));
    assert.ok(!isAllowed('10.1.2.3', ['2001:db8::/32']));
  });

  it('matches any entry of a list and fails closed on entries that do not parse', () => {
    assert.ok(isAllowed('198.51.100.9', ['203.0.113.7', '2001:db8::/32', '198.51.100.0/24']));
    assert.ok(!isAllowed('198.51.100.9', ['garbage']));
    assert.ok(!isAllowed('not an address', ['0.0.0.0/0']));
  });
});

describe('client address', () => {
  const proxies = trustedProxyRanges(['127.0.0.1', '10.0.0.0/8', '2001:db8:ffff::/48']);

  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    assert.equal(clientAddress('198.51.100.9', undefined, none), '198.51.100.9');
    assert.equal(clientAddress('127.0.0.1', '203.0.113.7', none), '127.0.0.1');
    assert.equal(clientAddress('127.0.0.1', ['203.0.113.7', '203.0.113.8'], none), '127.0.0.1');
    assert.equal(clientAddress('::ffff:127.0.0.1', '203.0.113.7', none), '127.0.0.1');
    assert.equal(clientAddress('2001:DB8::0:1', undefined, none), '2001:db8::1');
    assert.equal(clientAddress('fe80::1%eth0', undefined, none), 'fe80::1');
    assert.equal(clientAddress(undefined, '203.0.113.7', none), undefined);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    assert.equal(clientAddress('198.51.100.9', '203.0.113.7', proxies), '198.51.100.9');
    assert.equal(clientAddress('198.51.100.9', '127.0.0.1', proxies), '198.51.100.9');
  });

  it('walks from the right past trusted proxies to the first address that is not one', () => {
    assert.equal(clientAddress('127.0.0.1', '203.0.113.7', proxies), '203.0.113.7');
    assert.equal(clientAddress('127.0.0.1', '203.0.113.7, 10.1.1.1', proxies), '203.0.113.7');
    assert.equal(clientAddress('127.0.0.1', '203.0.113.7,10.1.1.1 , 10.2.2.2', proxies), '203.0.113.7');
    assert.equal(clientAddress('127.0.0.1', ['203.0.113.7', '10.1.1.1'], proxies), '203.0.113.7');
    assert.equal(clientAddress('::ffff:10.9.9.9', '203.0.113.7', proxies), '203.0.113.7');
    assert.equal(clientAddress('2001:db8:ffff::5', '2001:db8:1::9', proxies), '2001:db8:1::9');
  });

  it('stops at the first untrusted hop, so addresses the client wrote further left are ignored', () => {
    // The client sent "X-Forwarded-For: 10.0.0.1, 192.0.2.1" hoping to look internal; our proxy appended its peer.
    assert.equal(clientAddress('127.0.0.1', '10.0.0.1, 192.0.2.1, 198.51.100.9', proxies), '198.51.100.9');
    assert.equal(clientAddress('127.0.0.1', 'garbage, 198.51.100.9', proxies), '198.51.100.9');
  });

  it('takes the leftmost hop when every hop is a trusted proxy, and the peer when there is no header', () => {
    assert.equal(clientAddress('127.0.0.1', '10.0.0.1, 10.0.0.2', proxies), '10.0.0.1');
    assert.equal(clientAddress('127.0.0.1', undefined, proxies), '127.0.0.1');
    assert.equal(clientAddress('127.0.0.1', '', proxies), '127.0.0.1');
    assert.equal(clientAddress('127.0.0.1', ' , ', proxies), '127.0.0.1');
  });

  it('reads hops written with a port or brackets and unwraps mapped addresses', () => {
    assert.equal(clientAddress('127.0.0.1', '203.0.113.7:51234', proxies), '203.0.113.7');
    assert.equal(clientAddress('127.0.0.1', '[2001:db8::7]:443', proxies), '2001:db8::7');
    assert.equal(clientAddress('127.0.0.1', '[2001:db8::7]', proxies), '2001:db8::7');
    assert.equal(clientAddress('127.0.0.1', '::ffff:203.0.113.7', proxies), '203.0.113.7');
  });

  it('is unknown when the walk reaches a malformed hop', () => {
    assert.equal(clientAddress('127.0.0.1', 'unknown', proxies), undefined);
    assert.equal(clientAddress('127.0.0.1', '203.0.113.7, not-an-ip', proxies), undefined);
    assert.equal(clientAddress('127.0.0.1', '203.0.113.7, 10.0.0.1, 999.1.1.1', proxies), undefined);
  });
});

describe('trusted proxies', () => {
  it('refuses an entry the allow-list parser would refuse, naming TRUSTED_PROXIES', () => {
    assert.throws(() => trustedProxyRanges(['127.0.0.1', 'fe80::1%eth0']), (err: unknown) =>
      err instanceof ConfigError && err.variable === 'TRUSTED_PROXIES' && err.message.includes('fe80::1%eth0'));
    assert.deepEqual(trustedProxyRanges([]), []);
  });
});
