import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DashboardBrowser, registerByMail } from './helpers/dashboard-browser.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { runSvc } from './helpers/svc-cli.js';

// The dashboard's operator console over HTTP against the whole stack (the API side of
// test/dashboard-api.test.ts, kept apart because it needs a stack that trusts a proxy): operators
// sign in with OPERATOR_TOKEN, throttled; their cookie is their own; they approve and reject
// verifications; every audited change carries the client's address, the proxy's X-Forwarded-For
// believed only because TRUSTED_PROXIES names the test's loopback.

let stack: TestStack;
const PASSWORD = 'correct horse battery';
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

/** An operator's browser behind the proxy, as `address`. */
async function operatorAt(address: string) {
  const browser = new DashboardBrowser(stack.baseUrl, 'svc_operator');
  const res = await browser.call('POST', '/operator/sign-in', { token: stack.operatorToken }, from(address));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return browser;
}

/** A merchant who registered and submitted verification, from `address`. */
async function submitted(name: string, address: string) {
  const browser = new DashboardBrowser(stack.baseUrl);
  const email = `owner-${unique()}@example.com`;
  const reg = await registerByMail(browser, stack.mailbox, { email, password: PASSWORD, merchant_name: name }, from(address));
  assert.equal(reg.status, 201);
  const sent = await browser.call('POST', '/verification', {
    company_name: `${name} Ltd`, registration_number: `RC-${unique()}`, country: 'GB', documents: ['doc://certificate.pdf', 'doc://id.pdf'],
  }, from(address));
  assert.equal(sent.status, 201);
  return { browser, merchantId: reg.body.merchant.id as string, email };
}

const auditOf = async (operator: DashboardBrowser, query: string) =>
  (await operator.call('GET', `/operator/audit-log?${query}`)).body.data as Record<string, any>[];

before(async () => {
  stack = await startTestStack({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } });
});
after(async () => stack?.close());

describe('operator sign-in', () => {
  test('a wrong token is 401 invalid_credentials; wrong tokens from an address are slowed (429, Retry-After), the right one still works', async () => {
    const browser = new DashboardBrowser(stack.baseUrl, 'svc_operator');
    for (let i = 0; i < 6; i++) {
      const wrong = await browser.call('POST', '/operator/sign-in', { token: 'not the token' }, from('203.0.113.50'));
      assert.deepEqual([wrong.status, wrong.body.error.code], [401, 'invalid_credentials']);
    }
    let throttled: Awaited<ReturnType<DashboardBrowser['call']>> | undefined;
    for (let i = 0; i < 6 && !throttled; i++) {
      const res = await browser.call('POST', '/operator/sign-in', { token: 'not the token' }, from('203.0.113.50'));
      if (res.status === 429) throttled = res;
      else assert.equal(res.status, 401);
    }
    assert.ok(throttled, 'wrong tokens were slowed down');
    assert.equal(throttled.body.error.code, 'rate_limited');
    assert.ok(Number(throttled.headers.get('retry-after')) > 0);
    // The right token is never held back by wrong ones, from that address or another.
    await operatorAt('203.0.113.50');
    await operatorAt('203.0.113.51');
  });

  test('the cookie is HttpOnly, SameSite=Strict, scoped to the console\'s API; CSRF on changes; a merchant session is never an operator\'s', async () => {
    const operator = await operatorAt('198.51.100.9');
    assert.match(operator.lastSetCookie!, /HttpOnly/);
    assert.match(operator.lastSetCookie!, /SameSite=Strict/);
    assert.match(operator.lastSetCookie!, /Path=\/dashboard\/api\/operator(;|$)/);
    assert.equal((await operator.call('GET', '/operator/session')).status, 200);
    const noCsrf = await operator.call('POST', '/operator/merchants/mer_unknown/verify', {}, { csrf: null });
    assert.deepEqual([noCsrf.status, noCsrf.body.error.code], [403, 'invalid_csrf_token']);
    // The operator's cookie opens no merchant route, and a merchant's opens no operator route.
    assert.equal((await new DashboardBrowser(stack.baseUrl, 'svc_operator').call('GET', '/operator/merchants')).status, 401);
    const merchant = (await submitted('Not an operator', '198.51.100.10')).browser;
    const asMerchant = await merchant.call('GET', '/operator/merchants');
    assert.deepEqual([asMerchant.status, asMerchant.body.error.code], [401, 'unauthorized']);
    const mixed = new DashboardBrowser(stack.baseUrl);
    mixed.cookie = operator.cookie;
    assert.equal((await mixed.call('GET', '/session')).status, 401);
    const out = await operator.call('POST', '/operator/sign-out');
    assert.equal(out.status, 200);
    assert.equal((await operator.call('GET', '/operator/merchants')).status, 401);
  });
});

describe('verification decisions and the audit log', () => {
  test('the queue shows submitted details; approve opens live keys; reject keeps the reason for the merchant, who may submit again', async () => {
    const operator = await operatorAt('198.51.100.20');
    const approvedOne = await submitted('Approve me', '192.0.2.1');
    const rejectedOne = await submitted('Reject me', '192.0.2.2');
    const queue = (await operator.call('GET', '/operator/verifications')).body.data as Record<string, any>[];
    const entry = queue.find((v) => v.merchant_id === approvedOne.merchantId)!;
    assert.equal(entry.company_name, 'Approve me Ltd');
    assert.deepEqual(entry.documents, ['doc://certificate.pdf', 'doc://id.pdf']);
    assert.equal(entry.submitted_by, approvedOne.email);

    const approved = await operator.call('POST', `/operator/merchants/${approvedOne.merchantId}/verify`);
    assert.deepEqual([approved.status, approved.body.verification_status], [200, 'approved']);
    await approvedOne.browser.call('POST', '/mode', { mode: 'live' });
    assert.equal((await approvedOne.browser.call('POST', '/keys', { name: 'live' })).status, 201);

    const noReason = await operator.call('POST', `/operator/merchants/${rejectedOne.merchantId}/reject`, { reason: '' });
    assert.equal(noReason.status, 422);
    const rejected = await operator.call('POST', `/operator/merchants/${rejectedOne.merchantId}/reject`, {
      reason: 'The registration certificate is unreadable.',
    });
    assert.deepEqual([rejected.status, rejected.body.status], [200, 'rejected']);
    const seen = await rejectedOne.browser.call('GET', '/verification');
    assert.deepEqual([seen.body.status, seen.body.rejection_reason], ['rejected', 'The registration certificate is unreadable.']);
    assert.equal((await rejectedOne.browser.call('GET', '/session')).body.merchant.verification_status, 'rejected');
    const twice = await operator.call('POST', `/operator/merchants/${rejectedOne.merchantId}/reject`, { reason: 'again' });
    assert.deepEqual([twice.status, twice.body.error.code], [409, 'invalid_state_transition']);
    const rejectApproved = await operator.call('POST', `/operator/merchants/${approvedOne.merchantId}/reject`, { reason: 'late' });
    assert.equal(rejectApproved.status, 409);

    const merchants = (await operator.call('GET', '/operator/merchants')).body.data as Record<string, any>[];
    const statusOf = (id: string) => merchants.find((m) => m.id === id)?.verification_status;
    assert.deepEqual([statusOf(approvedOne.merchantId), statusOf(rejectedOne.merchantId)], ['approved', 'rejected']);
    const pending = (await operator.call('GET', '/operator/verifications')).body.data as Record<string, any>[];
    assert.ok(!pending.some((v) => [approvedOne.merchantId, rejectedOne.merchantId].includes(v.merchant_id)));
  });

  test('one vocabulary: the management API, `svc merchant list`, the session and the operator console agree', async () => {
    const operator = await operatorAt('192.0.2.9');
    const never = await registerByMail(new DashboardBrowser(stack.baseUrl), stack.mailbox,
      { email: `owner-${unique()}@example.com`, password: PASSWORD, merchant_name: 'Never submitted' });
    const waiting = await submitted('Waiting', '192.0.2.10');
    const refused = await submitted('Refused', '192.0.2.11');
    await operator.call('POST', `/operator/merchants/${refused.merchantId}/reject`, { reason: 'Unreadable.' });
    const accepted = await submitted('Accepted', '192.0.2.12');
    await operator.call('POST', `/operator/merchants/${accepted.merchantId}/verify`);
    const expected: Record<string, string> = {
      [never.body.merchant.id]: 'not_submitted', [waiting.merchantId]: 'pending', [refused.merchantId]: 'rejected', [accepted.merchantId]: 'approved',
    };

    const managed = await stack.manage('GET', '/merchants?limit=200');
    assert.equal(managed.status, 200, JSON.stringify(managed.body));
    const operatorList = (await operator.call('GET', '/operator/merchants')).body.data as Record<string, any>[];
    const cli = await runSvc(['merchant', 'list', '--limit', '200'], { ...process.env, SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken });
    assert.equal(cli.code, 0, cli.stderr);
    for (const [id, status] of Object.entries(expected)) {
      assert.equal(managed.body.data.find((m: any) => m.id === id)?.verification_status, status, id);
      assert.equal(operatorList.find((m) => m.id === id)?.verification_status, status, id);
      assert.match(cli.stdout, new RegExp(`^${id}  .*\\(verification: ${status.replace('_', ' ')}\\)`, 'm'));
    }
    assert.equal((await waiting.browser.call('GET', '/session')).body.merchant.verification_status, 'pending');
  });

  test('the management API rejects too (POST /manage/v1/merchants/:id/reject), audited with the forwarded address', async () => {
    const { merchantId } = await submitted('Managed', '192.0.2.3');
    const res = await request(stack.baseUrl, 'POST', `/manage/v1/merchants/${merchantId}/reject`, {
      key: stack.operatorToken, body: { reason: 'Documents missing' }, headers: { 'x-forwarded-for': '203.0.113.77' },
    });
    assert.deepEqual([res.status, res.body.rejection_reason], [200, 'Documents missing']);
    const operator = await operatorAt('198.51.100.30');
    const [entry] = await auditOf(operator, `merchant_id=${merchantId}&action=merchant.verification_rejected`);
    assert.deepEqual([entry.actor, entry.client_address, entry.data.reason], ['operator', '203.0.113.77', 'Documents missing']);
  });

  test('audit entries say who, what and from which address: a member\'s key, allow-list and endpoint changes, an operator\'s approval', async () => {
    const operator = await operatorAt('198.51.100.40');
    const { browser, merchantId, email } = await submitted('Audited', '192.0.2.44');
    const key = await browser.call('POST', '/keys', { name: 'audited key' }, from('192.0.2.45'));
    await browser.call('POST', `/keys/${key.body.id}/revoke`, undefined, from('192.0.2.46'));
    await browser.call('PUT', '/allowlist', { entries: ['192.0.2.0/24'] }, from('192.0.2.47'));
    await browser.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['payment.successful'] }, from('192.0.2.48'));
    await operator.call('POST', `/operator/merchants/${merchantId}/verify`, undefined, from('198.51.100.41'));
    const entries = await auditOf(operator, `merchant_id=${merchantId}&limit=100`);
    const byAction = (action: string) => entries.find((e) => e.action === action)!;
    assert.deepEqual(
      ['api_key.created', 'api_key.revoked', 'project.allowlist_updated', 'webhook_endpoint.created', 'merchant.verification_submitted']
        .map((a) => [a, byAction(a)?.actor_email, byAction(a)?.client_address]),
      [
        ['api_key.created', email, '192.0.2.45'], ['api_key.revoked', email, '192.0.2.46'],
        ['project.allowlist_updated', email, '192.0.2.47'], ['webhook_endpoint.created', email, '192.0.2.48'],
        ['merchant.verification_submitted', email, '192.0.2.44'],
      ],
    );
    assert.equal(byAction('api_key.created').target_id, key.body.id);
    assert.deepEqual([byAction('merchant.verified').actor, byAction('merchant.verified').client_address], ['operator', '198.51.100.41']);
    // Newest first, and paged by the last id.
    const firstPage = await operator.call('GET', `/operator/audit-log?merchant_id=${merchantId}&limit=2`);
    assert.equal(firstPage.body.data[0].action, 'merchant.verified');
    const next = await operator.call('GET', `/operator/audit-log?merchant_id=${merchantId}&limit=2&before=${firstPage.body.next_cursor}`);
    assert.notEqual(next.body.data[0].id, firstPage.body.data[1].id);
    assert.equal((await auditOf(operator, 'action=operator.signed_in')).some((e) => e.client_address === '198.51.100.40'), true);
  });
});
