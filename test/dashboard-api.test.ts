import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../services/platform/logger.js';
import { DashboardBrowser, MAIL, mailedLink, registerByMail, tokenOf } from './helpers/dashboard-browser.js';
import { eventually } from './helpers/eventually.js';
import { captureLogs } from './helpers/log-sink.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// The dashboard's own API over HTTP against the whole stack: a merchant registers, makes a key,
// pays with it over /v1 and refunds from the dashboard; sessions, CSRF, roles and the sign-in
// throttle are checked from outside, as a browser (or an attacker) meets them.

const { stream } = captureLogs();
let stack: TestStack;
const PASSWORD = 'correct horse battery';
let owner: DashboardBrowser;
let ownerEmail: string;
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

async function registered(name = 'Dashboard shop') {
  const browser = new DashboardBrowser(stack.baseUrl);
  const email = `owner-${unique()}@example.com`;
  const res = await registerByMail(browser, stack.mailbox, { email, password: PASSWORD, merchant_name: name });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { browser, email, res };
}

before(async () => {
  stack = await startTestStack({ logger: createLogger('test', 'info', stream) });
  ({ browser: owner, email: ownerEmail } = await registered());
});
after(async () => stack?.close());

describe('registration and the session', () => {
  test('register answers the session and sets an HttpOnly, SameSite=Lax cookie on /dashboard (not Secure over plain HTTP)', async () => {
    const { browser, email, res } = await registered('Cookie shop');
    assert.equal(res.body.user.email, email);
    assert.equal(res.body.merchant.name, 'Cookie shop');
    assert.equal(res.body.merchant.verification_status, 'not_submitted');
    assert.match(res.body.project.id, /^prj_/);
    assert.deepEqual([res.body.role, res.body.mode], ['owner', 'test']);
    const cookie = browser.lastSetCookie!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Path=\/dashboard(;|$)/);
    assert.doesNotMatch(cookie, /Secure/);
    const session = await browser.call('GET', '/session');
    assert.equal(session.status, 200);
    assert.equal(session.body.csrf_token, res.body.csrf_token);
  });

  test('the cookie is Secure when a trusted proxy says the browser came over https', async () => {
    const secureStack = await startTestStack({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } });
    try {
      const browser = new DashboardBrowser(secureStack.baseUrl);
      const res = await registerByMail(browser, secureStack.mailbox, {
        email: `tls-${unique()}@example.com`, password: PASSWORD, merchant_name: 'TLS shop',
      }, { headers: { 'x-forwarded-proto': 'https' } });
      assert.equal(res.status, 201);
      assert.match(browser.lastSetCookie!, /Secure/);
    } finally {
      await secureStack.close();
    }
  });

  test('an email registers once (whatever its case, the owner is mailed, the answer the same); a short password is refused by name', async () => {
    const again = await new DashboardBrowser(stack.baseUrl).call('POST', '/register', {
      email: ownerEmail.toUpperCase(), password: PASSWORD, merchant_name: 'Twice',
    });
    assert.deepEqual([again.status, again.body], [202, { accepted: true, link_delivery: 'email' }]);
    assert.match((await stack.mailbox.waitFor(ownerEmail, /tried to register/)).text, /already has one/);
    const short = await new DashboardBrowser(stack.baseUrl).call('POST', '/register', {
      email: `short-${unique()}@example.com`, password: 'too short', merchant_name: 'Short',
    });
    assert.deepEqual([short.status, short.body.error.code, short.body.error.param], [422, 'validation_error', 'password']);
  });

  test('without a session the API answers 401; an unknown API path is the JSON 404', async () => {
    const anonymous = new DashboardBrowser(stack.baseUrl);
    const res = await anonymous.call('GET', '/session');
    assert.deepEqual([res.status, res.body.error.code], [401, 'unauthorized']);
    const forged = new DashboardBrowser(stack.baseUrl);
    forged.cookie = 'A'.repeat(43);
    assert.equal((await forged.call('GET', '/payments')).status, 401);
    const unknown = await owner.call('GET', '/nothing-here');
    assert.deepEqual([unknown.status, unknown.body.error.code], [404, 'route_not_found']);
  });
});

describe('a first test payment', () => {
  test('create a test key, pay with it over /v1, see the payment and its timeline, refund it from the dashboard', async () => {
    const key = await owner.call('POST', '/keys', { name: 'shop backend' });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    assert.match(key.body.secret, /^svc_sk_test_/);
    assert.equal(key.body.mode, 'test');
    const listed = await owner.call('GET', '/keys');
    assert.equal(listed.body.data.length, 1);
    assert.equal(listed.body.data[0].secret, undefined);

    const paid = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: key.body.secret, body: { amount: 2500, currency: 'EUR', payment_method: 'card' },
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));

    const payments = await owner.call('GET', '/payments?limit=10');
    assert.equal(payments.status, 200);
    assert.deepEqual(payments.body.data.map((p: { id: string }) => p.id), [paid.body.id]);
    const filtered = await owner.call('GET', '/payments?status=failed');
    assert.deepEqual(filtered.body.data, []);
    const one = await owner.call('GET', `/payments/${paid.body.id}`);
    assert.deepEqual([one.status, one.body.amount], [200, 2500]);
    const timeline = await owner.call('GET', `/payments/${paid.body.id}/timeline`);
    assert.equal(timeline.status, 200);
    assert.ok(timeline.body.data.length > 0);

    const refund = await owner.call('POST', `/payments/${paid.body.id}/refund`, { amount: 1000 }, {
      headers: { 'idempotency-key': `refund-${paid.body.id}` },
    });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.amount, 1000);
    // The same click sent twice moves no money twice: the part returns the same refund.
    const again = await owner.call('POST', `/payments/${paid.body.id}/refund`, { amount: 1000 }, {
      headers: { 'idempotency-key': `refund-${paid.body.id}` },
    });
    assert.equal(again.body.id, refund.body.id);
    const refunds = await owner.call('GET', `/payments/${paid.body.id}/refunds`);
    assert.deepEqual(refunds.body.data.map((r: { id: string }) => r.id), [refund.body.id]);
    // And the API key sees the refund too: one payment, whichever door it was reached by.
    const seen = await request(stack.baseUrl, 'GET', `/v1/payments/${paid.body.id}`, { key: key.body.secret });
    assert.equal(seen.body.refunded_amount, 1000);
  });

  test('another merchant\'s payment is not found from this session', async () => {
    const other = await stack.newMerchantKey();
    const paid = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: other.secret, body: { amount: 100, currency: 'EUR', payment_method: 'card' },
    });
    assert.match(paid.body.id, /^pay_/, JSON.stringify(paid.body));
    // It exists, for its own merchant: the 404 below is about whose it is, not a mistyped id.
    const theirs = await request(stack.baseUrl, 'GET', `/v1/payments/${paid.body.id}`, { key: other.secret });
    assert.deepEqual([theirs.status, theirs.body.id], [200, paid.body.id]);
    const res = await owner.call('GET', `/payments/${paid.body.id}`);
    assert.deepEqual([res.status, res.body.error?.code], [404, 'resource_not_found']);
  });

  test('a request-log entry is the session\'s project\'s only: another merchant\'s call is not found, in the envelope', async () => {
    const other = await stack.newMerchantKey();
    const refused = await request(stack.baseUrl, 'GET', '/v1/payments/pay_nope', { key: other.secret });
    assert.equal(refused.status, 404);
    // Written after the answer: wait until the other merchant's log holds it, so the 404 is the scope's.
    await eventually('the call in the other merchant\'s request log', async () =>
      ((await stack.query('SELECT 1 FROM gateway.request_log WHERE request_id = $1', [refused.body.request_id])).rowCount ? true : undefined));
    const res = await owner.call('GET', `/request-log/${refused.body.request_id}`);
    assert.deepEqual([res.status, res.body.error.code, res.body.error.param], [404, 'resource_not_found', 'request_id']);
    assert.match(res.body.request_id, /^req_/);
  });

  test('a key is revoked from the dashboard; another project\'s key cannot be', async () => {
    const key = await owner.call('POST', '/keys', { name: 'to revoke' });
    const revoked = await owner.call('POST', `/keys/${key.body.id}/revoke`);
    assert.equal(revoked.status, 200);
    assert.ok(revoked.body.revoked_at);
    const use = await request(stack.baseUrl, 'GET', '/v1/payments', { key: key.body.secret });
    assert.equal(use.status, 401);
    const other = await stack.newMerchantKey();
    const theirs = await owner.call('POST', `/keys/${other.keyId}/revoke`);
    assert.equal(theirs.status, 404);
  });
});

describe('CSRF', () => {
  test('a state-changing call without the session\'s x-csrf-token is 403 and changes nothing', async () => {
    const missing = await owner.call('POST', '/keys', { name: 'no token' }, { csrf: null });
    assert.deepEqual([missing.status, missing.body.error.code], [403, 'invalid_csrf_token']);
    const wrong = await owner.call('POST', '/keys', { name: 'wrong token' }, { csrf: 'x'.repeat(43) });
    assert.deepEqual([wrong.status, wrong.body.error.code], [403, 'invalid_csrf_token']);
    // Another session's token does not fit this one.
    const { browser: other } = await registered('Other shop');
    const foreign = await owner.call('POST', '/keys', { name: 'foreign token' }, { csrf: other.csrf! });
    assert.equal(foreign.status, 403);
    const keys = await owner.call('GET', '/keys');
    assert.ok(!keys.body.data.some((k: { name: string }) => /token/.test(k.name)));
  });

  test('a sign-in posted from another site\'s page (Origin) is refused', async () => {
    const res = await new DashboardBrowser(stack.baseUrl).call('POST', '/sign-in', { email: ownerEmail, password: PASSWORD }, {
      headers: { origin: 'https://evil.example' },
    });
    assert.deepEqual([res.status, res.body.error.code], [403, 'invalid_csrf_token']);
  });
});

describe('roles', () => {
  test('an invited read-only member sees payments, disputes and keys, never a secret, and changes nothing (403)', async () => {
    const memberEmail = `reader-${unique()}@example.com`;
    const invited = await owner.call('POST', '/invitations', { email: memberEmail, role: 'read_only' });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    const link = await mailedLink(stack.mailbox, memberEmail, MAIL.invitation);
    assert.match(link, /\/dashboard\/invitation\?token=/);
    const reader = new DashboardBrowser(stack.baseUrl);
    const joined = await reader.call('POST', '/invitations/accept', { token: tokenOf(link), password: PASSWORD });
    assert.equal(joined.status, 201, JSON.stringify(joined.body));
    assert.deepEqual([joined.body.role, joined.body.permissions], ['read_only', ['view']]);
    assert.equal(joined.body.merchant.id, (await owner.call('GET', '/session')).body.merchant.id);

    const keys = await reader.call('GET', '/keys');
    assert.equal(keys.status, 200);
    assert.ok(keys.body.data.length > 0);
    assert.ok(keys.body.data.every((k: Record<string, unknown>) => k.secret === undefined));
    for (const [method, path, body] of [
      ['POST', '/keys', { name: 'reader key' }],
      ['POST', '/webhook-endpoints', { url: 'https://example.com/hook', events: ['payment.successful'] }],
      ['PUT', '/allowlist', { entries: ['203.0.113.7'] }],
      ['POST', '/allowlist/check', { entries: ['203.0.113.7'] }],
      ['POST', '/invitations', { email: 'x@example.com', role: 'owner' }],
      ['POST', '/disputes/dp_01m0000000000000000000000/accept', {}],
      ['POST', '/disputes/dp_01m0000000000000000000000/evidence', { shipping_tracking_number: 'JD1', submit: true }],
      ['POST', '/disputes/dp_01m0000000000000000000000/documents', { filename: 'a.pdf', type: 'application/pdf', content: 'JVBERi0xLjQK' }],
      ['POST', '/payments', { amount: 100, currency: 'EUR', payment_method: 'card' }],
      ['POST', '/routing-rules', { name: 'r', priority: 1, providers: ['demo_alpha'] }],
      ['DELETE', '/routing-rules/rtr_01m0000000000000000000000', undefined],
    ] as const) {
      const res = await reader.call(method, path, body);
      assert.deepEqual([res.status, res.body.error.code], [403, 'forbidden'], `${method} ${path}`);
    }
    const payments = await reader.call('GET', '/payments');
    assert.equal(payments.status, 200);
    assert.equal((await reader.call('GET', '/disputes')).status, 200);
    const members = await owner.call('GET', '/members');
    assert.deepEqual(members.body.data.map((m: { role: string }) => m.role).sort(), ['owner', 'read_only']);
    // The link works once.
    const twice = await new DashboardBrowser(stack.baseUrl).call('POST', '/invitations/accept', { token: tokenOf(link), password: PASSWORD });
    assert.deepEqual([twice.status, twice.body.error.code], [422, 'invalid_token']);
  });
});

describe('signing in and out', () => {
  test('sign-in slows failures down per email and address: past the free ones an attempt waits (429, Retry-After), never locked for long', async () => {
    const { email } = await registered('Throttled shop');
    const browser = new DashboardBrowser(stack.baseUrl);
    for (let i = 0; i < 6; i++) {
      const res = await browser.call('POST', '/sign-in', { email, password: 'wrong password!' });
      assert.deepEqual([res.status, res.body.error.code], [401, 'invalid_credentials']);
    }
    // Each further failure doubles the interval: within a few wrong guesses one meets it.
    let throttled: Awaited<ReturnType<DashboardBrowser['call']>> | undefined;
    for (let i = 0; i < 6 && !throttled; i++) {
      const res = await browser.call('POST', '/sign-in', { email, password: 'wrong password!' });
      if (res.status === 429) throttled = res;
      else assert.equal(res.status, 401);
    }
    assert.ok(throttled, 'wrong guesses were slowed down');
    assert.equal(throttled.body.error.code, 'rate_limited');
    const wait = Number(throttled.headers.get('retry-after'));
    assert.ok(wait > 0 && wait <= 60, `retry-after ${wait}`);
    // An unknown email is refused exactly like a wrong password.
    const unknown = await browser.call('POST', '/sign-in', { email: `nobody-${unique()}@example.com`, password: PASSWORD });
    assert.deepEqual([unknown.status, unknown.body.error.code], [401, 'invalid_credentials']);
  });

  test('sign-out-everywhere ends every session of the user; sign-out ends this one', async () => {
    const { browser: first, email } = await registered('Two browsers');
    const second = new DashboardBrowser(stack.baseUrl);
    assert.equal((await second.call('POST', '/sign-in', { email, password: PASSWORD })).status, 200);
    const third = new DashboardBrowser(stack.baseUrl);
    assert.equal((await third.call('POST', '/sign-in', { email, password: PASSWORD })).status, 200);
    const out = await third.call('POST', '/sign-out');
    assert.deepEqual([out.status, out.body.signed_out], [200, 1]);
    assert.equal(third.cookie, undefined);
    const all = await first.call('POST', '/sign-out-everywhere');
    assert.deepEqual([all.status, all.body.signed_out], [200, 2]);
    assert.equal((await second.call('GET', '/session')).status, 401);
  });

  test('a password reset by the mailed link: once, sessions ended, the new password signs in', async () => {
    const { browser, email } = await registered('Forgetful shop');
    const asked = await new DashboardBrowser(stack.baseUrl).call('POST', '/password-reset', { email });
    assert.equal(asked.status, 202);
    const unknown = await new DashboardBrowser(stack.baseUrl).call('POST', '/password-reset', { email: `nobody-${unique()}@example.com` });
    assert.equal(unknown.status, 202);
    const token = tokenOf(await mailedLink(stack.mailbox, email, MAIL.reset));
    const anon = new DashboardBrowser(stack.baseUrl);
    const reset = await anon.call('POST', '/password-reset/confirm', { token, password: 'a brand new passphrase' });
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.equal((await browser.call('GET', '/session')).status, 401);
    const reused = await anon.call('POST', '/password-reset/confirm', { token, password: 'another new passphrase' });
    assert.deepEqual([reused.status, reused.body.error.code], [422, 'invalid_token']);
    assert.equal((await anon.call('POST', '/sign-in', { email, password: PASSWORD })).status, 401);
    assert.equal((await anon.call('POST', '/sign-in', { email, password: 'a brand new passphrase' })).status, 200);
  });

  test('a session cookie never authorises /v1', async () => {
    const res = await request(stack.baseUrl, 'GET', '/v1/payments', { headers: { cookie: `svc_session=${owner.cookie}` } });
    assert.deepEqual([res.status, res.body.error.code], [401, 'unauthorized']);
  });
});

describe('live mode, verification, webhooks and settings', () => {
  test('live can be viewed before verification, but a live key is refused until an operator approves', async () => {
    const { browser } = await registered('Going live');
    const live = await browser.call('POST', '/mode', { mode: 'live' });
    assert.deepEqual([live.status, live.body.mode], [200, 'live']);
    assert.equal((await browser.call('GET', '/session')).body.mode, 'live');
    const refused = await browser.call('POST', '/keys', { name: 'live key' });
    assert.deepEqual([refused.status, refused.body.error.code], [409, 'live_mode_not_verified']);
    const submitted = await browser.call('POST', '/verification', {
      company_name: 'Going Live GmbH', registration_number: 'HRB 12345', country: 'de', documents: ['doc://incorporation.pdf'],
    });
    assert.deepEqual([submitted.status, submitted.body.status, submitted.body.country], [201, 'pending', 'DE']);
    assert.equal((await browser.call('GET', '/session')).body.merchant.verification_status, 'pending');
    const merchantId = (await browser.call('GET', '/session')).body.merchant.id;
    assert.equal((await stack.manage('POST', `/merchants/${merchantId}/verify`)).status, 200);
    assert.equal((await browser.call('GET', '/verification')).body.status, 'approved');
    const key = await browser.call('POST', '/keys', { name: 'live key' });
    assert.equal(key.status, 201);
    assert.match(key.body.secret, /^svc_sk_live_/);
  });

  test('webhook endpoints: the secret once at creation and rotation; deliveries of a test event', async () => {
    const created = await owner.call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['payment.successful'] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.secret, /^whsec_/);
    const listed = await owner.call('GET', '/webhook-endpoints');
    assert.equal(listed.body.data[0].secret, undefined);
    const disabled = await owner.call('POST', `/webhook-endpoints/${created.body.id}/disable`);
    assert.equal(disabled.body.status, 'disabled');
    await owner.call('POST', `/webhook-endpoints/${created.body.id}/enable`);
    const rotated = await owner.call('POST', `/webhook-endpoints/${created.body.id}/rotate-secret`);
    assert.ok(rotated.body.secret && rotated.body.secret !== created.body.secret);
    const sent = await owner.call('POST', '/webhooks/test', { event_type: 'payment.successful' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const deliveries = await owner.call('GET', `/webhook-deliveries?endpoint_id=${created.body.id}&event_type=payment.successful`);
    assert.equal(deliveries.status, 200);
    const delivery = deliveries.body.data.find((d: { event_id: string }) => d.event_id === sent.body.event_id);
    assert.ok(delivery, 'the test event\'s delivery is listed');
    const detail = await owner.call('GET', `/webhook-deliveries/${delivery.id}`);
    assert.deepEqual([detail.status, detail.body.event.id], [200, sent.body.event_id]);
    const modeInQuery = await owner.call('GET', '/webhook-endpoints?mode=live');
    assert.equal(modeInQuery.status, 422);
  });

  test('the IP allow-list is read and replaced, and /v1 holds to it', async () => {
    const { browser } = await registered('Allow-listed');
    const key = await browser.call('POST', '/keys', { name: 'k' });
    const set = await browser.call('PUT', '/allowlist', { entries: ['203.0.113.7'] });
    assert.deepEqual([set.status, set.body.entries], [200, ['203.0.113.7']]);
    assert.deepEqual((await browser.call('GET', '/allowlist')).body.entries, ['203.0.113.7']);
    const refused = await request(stack.baseUrl, 'GET', '/v1/payments', { key: key.body.secret });
    assert.deepEqual([refused.status, refused.body.error.code], [403, 'ip_not_allowed']);
    const bad = await browser.call('PUT', '/allowlist', { entries: ['not an address'] });
    assert.deepEqual([bad.status, bad.body.error.param], [422, 'entries.0']);
    // Said for a person, naming the entry, not as the validator's path.
    assert.match(bad.body.error.message, /^“not an address” is not an IP address or range\. Enter an exact address such as 203\.0\.113\.7/);
    assert.doesNotMatch(bad.body.error.message, /entries\.0/);
  });

  test('a proposed allow-list is checked against the member\'s own address, X-Forwarded-For not believed without TRUSTED_PROXIES', async () => {
    const { browser } = await registered('Allow-list checked');
    assert.equal((await browser.call('GET', '/allowlist')).body.client_address, '127.0.0.1');
    const spoofed = { headers: { 'x-forwarded-for': '10.1.2.3' } };
    const outside = await browser.call('POST', '/allowlist/check', { entries: [' 10.9.9.9/8'] }, spoofed);
    assert.deepEqual([outside.status, outside.body], [200, { entries: ['10.0.0.0/8'], client_address: '127.0.0.1', client_allowed: false }]);
    const inside = await browser.call('POST', '/allowlist/check', { entries: ['203.0.113.7', '127.0.0.0/8', '127.0.0.1/8'] });
    assert.deepEqual(inside.body, { entries: ['203.0.113.7', '127.0.0.0/8'], client_address: '127.0.0.1', client_allowed: true });
    assert.equal((await browser.call('POST', '/allowlist/check', { entries: [] })).body.client_allowed, true);
    const bad = await browser.call('POST', '/allowlist/check', { entries: ['127.0.0.1', 'not-an-ip'] });
    assert.deepEqual([bad.status, bad.body.error.param], [422, 'entries.1']);
    assert.match(bad.body.error.message, /^“not-an-ip” is not an IP address or range/);
    assert.deepEqual((await browser.call('GET', '/allowlist')).body.entries, [], 'a check saves nothing');
  });
});
