// Per-project IP allow-list through the real HTTP gateway: the in-process stack gateway trusts no
// proxy (client = socket peer, 127.0.0.1 here), a separate gateway process trusts 127.0.0.1 and
// 10.0.0.0/8 and so reads the client from X-Forwarded-For. Plus the management API and `svc allowlist`.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { startGatewayProcesses, type GatewayProcess } from './helpers/gateways.js';
import { runSvc as svc } from './helpers/svc-cli.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

type Reply = Awaited<ReturnType<typeof request>>;
type Merchant = Awaited<ReturnType<TestStack['newMerchantKey']>>;

function assertRefused(r: Reply): void {
  assert.equal(r.status, 403, JSON.stringify(r.body));
  assert.equal(r.body.error.type, 'permission_error');
  assert.equal(r.body.error.code, 'ip_not_allowed');
  assert.match(r.body.request_id, /^req_/);
  assert.equal(r.body.request_id, r.headers.get('x-request-id'));
}


describe('IP allow-list', () => {
  let stack: TestStack;
  let proxied: GatewayProcess;

  const setList = async (projectId: string, entries: string[]) => {
    const r = await stack.manage('PUT', `/projects/${projectId}/allowlist`, { entries });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const count = async (sql: string, params: unknown[]) => (await stack.query(sql, params)).rows[0].n as number;

  before(async () => {
    stack = await startTestStack();
    [proxied] = await startGatewayProcesses(stack, 1, { TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' });
  });
  after(async () => {
    await proxied?.process.stop();
    await stack?.close();
  });

  describe('on a gateway that trusts no proxy', () => {
    let merchant: Merchant;
    before(async () => {
      merchant = await stack.newMerchantKey();
    });

    it('does not restrict a project whose list is empty', async () => {
      const list = await stack.manage('GET', `/projects/${merchant.projectId}/allowlist`);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body, { project_id: merchant.projectId, entries: [] });
      const me = await request(stack.baseUrl, 'GET', '/v1/me', { key: merchant.secret });
      assert.equal(me.status, 200);
    });

    it('refuses a valid key from an address outside the list, before anything else', async () => {
      const counted = () => count(
        'SELECT COALESCE(sum(count), 0)::int AS n FROM gateway.rate_limit_windows WHERE api_key_id = $1', [merchant.keyId],
      );
      const countedBefore = await counted();
      await setList(merchant.projectId, ['203.0.113.0/24', '2001:db8::/32']);
      const me = await request(stack.baseUrl, 'GET', '/v1/me', { key: merchant.secret });
      assertRefused(me);
      assert.match(me.body.error.message, /127\.0\.0\.1/, 'the message names the address the gateway saw');
      // Refused before the rate limit: no headers, nothing counted against the key.
      assert.equal(me.headers.get('x-ratelimit-limit'), null);

      const reference = `order_${randomUUID()}`;
      const idem = `idem_${randomUUID()}`;
      const body = { amount: 1000, currency: 'EUR', payment_method: 'card', reference };
      const created = await request(stack.baseUrl, 'POST', '/v1/payments', {
        key: merchant.secret, body, headers: { 'idempotency-key': idem },
      });
      assertRefused(created);
      // Even an invalid body is refused by the allow-list, not by validation (which comes later).
      assertRefused(await request(stack.baseUrl, 'POST', '/v1/payments', { key: merchant.secret, body: { nope: 1 } }));
      // An unknown route too: the allow-list runs before routing.
      assertRefused(await request(stack.baseUrl, 'GET', '/v1/nothing-here', { key: merchant.secret }));

      assert.equal(await count('SELECT count(*)::int AS n FROM payments.payments WHERE reference = $1', [reference]), 0);
      assert.equal(await count('SELECT count(*)::int AS n FROM gateway.idempotency_keys WHERE api_key_id = $1', [merchant.keyId]), 0);
      assert.equal(await counted(), countedBefore, 'refused requests cost the key no rate-limit quota');

      // Once allowed, the same Idempotency-Key creates the payment: the refusal left no record behind.
      await setList(merchant.projectId, ['127.0.0.0/8']);
      const retried = await request(stack.baseUrl, 'POST', '/v1/payments', {
        key: merchant.secret, body, headers: { 'idempotency-key': idem },
      });
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      assert.equal(retried.headers.get('idempotent-replayed'), null);
      assert.equal(await count('SELECT count(*)::int AS n FROM payments.payments WHERE reference = $1', [reference]), 1);
    });

    it('lets an address inside the list through, written as IPv4, a range or mapped IPv6', async () => {
      for (const entries of [['127.0.0.1'], ['127.0.0.0/8'], ['::ffff:127.0.0.1'], ['203.0.113.7', '0.0.0.0/0'], ['::/0']]) {
        await setList(merchant.projectId, entries);
        const me = await request(stack.baseUrl, 'GET', '/v1/me', { key: merchant.secret });
        assert.equal(me.status, 200, `${entries.join(',')}: ${JSON.stringify(me.body)}`);
        assert.ok(me.headers.get('x-ratelimit-limit'), 'an allowed request goes on to the rate limit');
      }
    });

    it('applies per project: another project\'s key is unaffected', async () => {
      await setList(merchant.projectId, ['203.0.113.7']);
      const other = await stack.newMerchantKey();
      assert.equal((await request(stack.baseUrl, 'GET', '/v1/me', { key: other.secret })).status, 200);
      assertRefused(await request(stack.baseUrl, 'GET', '/v1/me', { key: merchant.secret }));
      // Clearing the list lifts the restriction on the next request.
      await setList(merchant.projectId, []);
      assert.equal((await request(stack.baseUrl, 'GET', '/v1/me', { key: merchant.secret })).status, 200);
    });

    it('ignores X-Forwarded-For, so a spoofed header does not get through', async () => {
      await setList(merchant.projectId, ['203.0.113.7']);
      for (const xff of ['203.0.113.7', '203.0.113.7, 127.0.0.1', '127.0.0.1, 203.0.113.7']) {
        const me = await request(stack.baseUrl, 'GET', '/v1/me', {
          key: merchant.secret, headers: { 'x-forwarded-for': xff },
        });
        assertRefused(me);
      }
    });

    it('still answers 401 first for a missing or bad key', async () => {
      await setList(merchant.projectId, ['203.0.113.7']);
      const r = await request(stack.baseUrl, 'GET', '/v1/me', { key: 'svc_sk_test_doesnotexist' });
      assert.equal(r.status, 401);
      assert.equal(r.body.error.code, 'invalid_api_key');
    });
  });

  describe('on a gateway that trusts 127.0.0.1 and 10.0.0.0/8 as proxies', () => {
    let merchant: Merchant;
    before(async () => {
      merchant = await stack.newMerchantKey();
      await setList(merchant.projectId, ['203.0.113.7', '2001:db8::/32']);
    });
    const me = (xff?: string) => request(proxied.baseUrl, 'GET', '/v1/me', {
      key: merchant.secret, headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
    });

    it('takes the client from X-Forwarded-For', async () => {
      assert.equal((await me('203.0.113.7')).status, 200);
      assert.equal((await me('2001:db8::42')).status, 200);
      assert.equal((await me('::ffff:203.0.113.7')).status, 200);
      // Through a chain of our own proxies (10.x), the client is the first untrusted hop from the right.
      assert.equal((await me('203.0.113.7, 10.1.2.3, 10.4.5.6')).status, 200);
      const outside = await me('198.51.100.9');
      assertRefused(outside);
      assert.match(outside.body.error.message, /198\.51\.100\.9/);
    });

    it('ignores what the client wrote left of the first untrusted hop', async () => {
      // The client claims to be 203.0.113.7; our proxy appended its real address 198.51.100.9.
      assertRefused(await me('203.0.113.7, 198.51.100.9'));
      assertRefused(await me('203.0.113.7, 198.51.100.9, 10.1.2.3'));
    });

    it('refuses when the walk reaches a malformed hop, and treats a request without the header as from the proxy', async () => {
      assertRefused(await me('unknown'));
      assertRefused(await me('203.0.113.7, 10.1.2.3, garbage'));
      assertRefused(await me()); // the peer 127.0.0.1 itself, which is not on the list
      await setList(merchant.projectId, ['127.0.0.1']);
      // This replica learns the change made through the other within the documented second.
      await eventually('the new list on the proxied replica', async () => ((await me()).status === 200 ? true : undefined), 1_000);
      assertRefused(await me('203.0.113.7'));
    });
  });

  describe('management API', () => {
    let merchant: Merchant;
    before(async () => {
      merchant = await stack.newMerchantKey();
    });

    it('stores entries in normal form, without duplicates, and audits the change', async () => {
      const body = await setList(merchant.projectId, [
        '10.1.2.3/8', '::FFFF:192.0.2.1', '2001:DB8:0:0:0:0:0:1', '2001:db8::/32', '::ffff:10.0.0.0/104', '198.51.100.7/32',
      ]);
      const entries = ['10.0.0.0/8', '192.0.2.1', '2001:db8::1', '2001:db8::/32', '198.51.100.7'];
      assert.deepEqual(body, { project_id: merchant.projectId, entries });
      const shown = await stack.manage('GET', `/projects/${merchant.projectId}/allowlist`);
      assert.equal(shown.status, 200);
      assert.deepEqual(shown.body, { project_id: merchant.projectId, entries });

      const { rows } = await stack.query(
        `SELECT actor, merchant_id, target_id, data FROM gateway.audit_log
         WHERE action = 'project.allowlist_updated' AND project_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
        [merchant.projectId],
      );
      assert.equal(rows.length, 1);
      assert.equal(rows[0].actor, 'operator');
      assert.equal(rows[0].merchant_id, merchant.merchantId);
      assert.equal(rows[0].target_id, merchant.projectId);
      assert.deepEqual(rows[0].data, { from: [], to: entries });
    });

    it('refuses a bad entry with 422 naming its position and value, and changes nothing', async () => {
      const before = (await stack.manage('GET', `/projects/${merchant.projectId}/allowlist`)).body.entries;
      const cases: [unknown, string, RegExp][] = [
        [['10.0.0.1', '192.0.2.1', '10.0.0.0/33'], 'entries.2', /10\.0\.0\.0\/33/],
        [['localhost'], 'entries.0', /localhost/],
        [['10.0.0.1', 7], 'entries.1', /7/],
        [['fe80::1%eth0'], 'entries.0', /fe80::1%eth0/],
        ['10.0.0.1', 'entries', /array/],
        [Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`), 'entries', /at most 100/],
      ];
      for (const [entries, param, message] of cases) {
        const r = await stack.manage('PUT', `/projects/${merchant.projectId}/allowlist`, { entries });
        assert.equal(r.status, 422, JSON.stringify(r.body));
        assert.equal(r.body.error.type, 'invalid_request_error');
        assert.equal(r.body.error.code, 'validation_error');
        assert.equal(r.body.error.param, param);
        assert.match(r.body.error.message, message);
      }
      const missing = await stack.manage('PUT', `/projects/${merchant.projectId}/allowlist`, {});
      assert.equal(missing.status, 422);
      assert.equal(missing.body.error.param, 'entries');
      assert.deepEqual((await stack.manage('GET', `/projects/${merchant.projectId}/allowlist`)).body.entries, before);
      // Exactly 100 is fine.
      const hundred = Array.from({ length: 100 }, (_, i) => `10.0.${i}.1`);
      assert.equal((await setList(merchant.projectId, hundred)).entries.length, 100);
    });

    it('answers 404 for an unknown project and 401 without the operator token', async () => {
      for (const r of [
        await stack.manage('GET', '/projects/prj_doesnotexist/allowlist'),
        await stack.manage('PUT', '/projects/prj_doesnotexist/allowlist', { entries: [] }),
      ]) {
        assert.equal(r.status, 404);
        assert.equal(r.body.error.code, 'resource_not_found');
      }
      const anonymous = await request(stack.baseUrl, 'GET', `/manage/v1/projects/${merchant.projectId}/allowlist`);
      assert.equal(anonymous.status, 401);
    });
  });

  describe('svc allowlist', () => {
    let merchant: Merchant;
    let env: Record<string, string>;
    before(async () => {
      merchant = await stack.newMerchantKey();
      env = { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken };
    });

    it('sets and shows a list, as JSON and for a person', async () => {
      const set = await svc(['allowlist', 'set', '--project', merchant.projectId, '127.0.0.0/8', '2001:DB8::1', '--json'], env);
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout), { project_id: merchant.projectId, entries: ['127.0.0.0/8', '2001:db8::1'] });
      assert.equal((await request(stack.baseUrl, 'GET', '/v1/me', { key: merchant.secret })).status, 200);

      const shown = await svc(['allowlist', 'show', '--project', merchant.projectId, '--json'], env);
      assert.equal(shown.code, 0, shown.stderr);
      assert.deepEqual(JSON.parse(shown.stdout).entries, ['127.0.0.0/8', '2001:db8::1']);

      const human = await svc(['allowlist', 'show', '--project', merchant.projectId], env);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^ {2}127\.0\.0\.0\/8$/m);
      assert.match(human.stdout, /^ {2}2001:db8::1$/m);

      const narrowed = await svc(['allowlist', 'set', '--project', merchant.projectId, '203.0.113.7'], env);
      assert.equal(narrowed.code, 0, narrowed.stderr);
      assertRefused(await request(stack.baseUrl, 'GET', '/v1/me', { key: merchant.secret }));
    });

    it('clears the list when given no entries', async () => {
      const r = await svc(['allowlist', 'set', '--project', merchant.projectId], env);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /empty/);
      const shown = await svc(['allowlist', 'show', '--project', merchant.projectId, '--json'], env);
      assert.deepEqual(JSON.parse(shown.stdout).entries, []);
      assert.equal((await request(stack.baseUrl, 'GET', '/v1/me', { key: merchant.secret })).status, 200);
    });

    it('refuses a bad entry before calling the API, with a message naming it', async () => {
      await svc(['allowlist', 'set', '--project', merchant.projectId, '192.0.2.1'], env);
      const r = await svc(['allowlist', 'set', '--project', merchant.projectId, '192.0.2.1', '10.0.0.0/33'], env);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /"10\.0\.0\.0\/33" is not an IP address or CIDR range/);
      assert.match(r.stderr, /usage: svc allowlist set/);
      assert.equal(r.stdout, '');
      const shown = await svc(['allowlist', 'show', '--project', merchant.projectId, '--json'], env);
      assert.deepEqual(JSON.parse(shown.stdout).entries, ['192.0.2.1'], 'nothing was changed');
    });

    it('reports an unknown project as an API error', async () => {
      const r = await svc(['allowlist', 'show', '--project', 'prj_doesnotexist', '--json'], env);
      assert.equal(r.code, 1);
      assert.equal(JSON.parse(r.stdout).error.code, 'resource_not_found');
      const usage = await svc(['allowlist', 'show'], env);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /--project is required/);
    });
  });
});
