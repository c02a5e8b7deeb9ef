import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DashboardBrowser, MAIL, mailedLink, registerByMail, tokenOf } from './helpers/dashboard-browser.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

// Managing a team: a member could not be removed, an invitation could not be revoked,
// and inviting an email again with another role silently kept the old one. Each is attacked from
// outside, as owners and members meet it over the dashboard's API.

const PASSWORD = 'correct horse battery';
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
let stack: TestStack;
let owner: DashboardBrowser;
let merchantId: string;

async function invite(email: string, role: string, by = owner) {
  const invited = await by.call('POST', '/invitations', { email, role });
  assert.equal(invited.status, 201, JSON.stringify(invited.body));
  return invited.body as { id: string; role: string };
}

async function join(email: string, role: string) {
  const invitation = await invite(email, role);
  const browser = new DashboardBrowser(stack.baseUrl);
  const joined = await browser.call('POST', '/invitations/accept', {
    token: tokenOf(await mailedLink(stack.mailbox, email, MAIL.invitation)), password: PASSWORD,
  });
  assert.equal(joined.status, 201, JSON.stringify(joined.body));
  return { browser, userId: joined.body.user.id as string, invitation };
}

const auditActions = async (targetId: string) =>
  (await stack.query('SELECT action, actor FROM gateway.audit_log WHERE target_id = $1 ORDER BY created_at', [targetId])).rows;

before(async () => {
  stack = await startTestStack();
  owner = new DashboardBrowser(stack.baseUrl);
  const res = await registerByMail(owner, stack.mailbox, { email: `owner-${unique()}@example.com`, password: PASSWORD, merchant_name: 'Team shop' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  merchantId = res.body.merchant.id;
});
after(async () => stack?.close());

describe('removing a member', () => {
  test('ends their sessions on the merchant and their access, audited; the member can no longer sign in to it', async () => {
    const email = `dev-${unique()}@example.com`;
    const { browser: member, userId } = await join(email, 'developer');
    const second = new DashboardBrowser(stack.baseUrl);
    assert.equal((await second.call('POST', '/sign-in', { email, password: PASSWORD })).status, 200);
    assert.equal((await member.call('GET', '/keys')).status, 200);

    const removed = await owner.call('POST', `/members/${userId}/remove`);
    assert.deepEqual([removed.status, removed.body], [200, { removed: true, user_id: userId, sessions_ended: 2 }]);
    for (const browser of [member, second]) {
      const res = await browser.call('GET', '/keys');
      assert.deepEqual([res.status, res.body.error.code], [401, 'unauthorized']);
    }
    const signIn = await new DashboardBrowser(stack.baseUrl).call('POST', '/sign-in', { email, password: PASSWORD });
    assert.deepEqual([signIn.status, signIn.body.error.code], [403, 'forbidden']);
    const members = (await owner.call('GET', '/members')).body.data.map((m: { user_id: string }) => m.user_id);
    assert.ok(!members.includes(userId));
    assert.deepEqual((await auditActions(userId)).map((r) => r.action), ['member.joined', 'member.removed']);
  });

  test('the last owner cannot be removed (409); a second owner can; members who are not owners remove no one (403)', async () => {
    const self = (await owner.call('GET', '/session')).body.user.id;
    const last = await owner.call('POST', `/members/${self}/remove`);
    assert.deepEqual([last.status, last.body.error.code, last.body.error.param], [409, 'invalid_state_transition', 'user_id']);
    assert.ok(last.headers.get('x-request-id'));

    const { browser: dev } = await join(`dev2-${unique()}@example.com`, 'developer');
    const byDev = await dev.call('POST', `/members/${self}/remove`);
    assert.deepEqual([byDev.status, byDev.body.error.code], [403, 'forbidden']);
    const noCsrf = await owner.call('POST', `/members/${self}/remove`, undefined, { csrf: null });
    assert.deepEqual([noCsrf.status, noCsrf.body.error.code], [403, 'invalid_csrf_token']);

    const { userId: coOwner } = await join(`owner2-${unique()}@example.com`, 'owner');
    const unknown = await owner.call('POST', '/members/usr_nobody/remove');
    assert.deepEqual([unknown.status, unknown.body.error.code], [404, 'resource_not_found']);
    assert.equal((await owner.call('POST', `/members/${coOwner}/remove`)).status, 200);
    const roles = (await owner.call('GET', '/members')).body.data.map((m: { role: string }) => m.role);
    assert.equal(roles.filter((r: string) => r === 'owner').length, 1);
  });
});

describe('revoking an invitation', () => {
  test('its link stops working (422 invalid_token) and it leaves the list, audited; revoking twice is 404', async () => {
    const email = `revoked-${unique()}@example.com`;
    const invitation = await invite(email, 'owner');
    const link = await mailedLink(stack.mailbox, email, MAIL.invitation);
    const revoked = await owner.call('POST', `/invitations/${invitation.id}/revoke`);
    assert.deepEqual([revoked.status, revoked.body], [200, { revoked: true, id: invitation.id }]);
    const accept = await new DashboardBrowser(stack.baseUrl).call('POST', '/invitations/accept', { token: tokenOf(link), password: PASSWORD });
    assert.deepEqual([accept.status, accept.body.error.code, accept.body.error.param], [422, 'invalid_token', 'token']);
    const listed = (await owner.call('GET', '/members')).body.invitations.map((i: { id: string }) => i.id);
    assert.ok(!listed.includes(invitation.id));
    assert.deepEqual((await auditActions(invitation.id)).map((r) => r.action), ['member.invited', 'member.invitation_revoked']);
    const twice = await owner.call('POST', `/invitations/${invitation.id}/revoke`);
    assert.deepEqual([twice.status, twice.body.error.code], [404, 'resource_not_found']);
    const users = await stack.query('SELECT count(*) AS n FROM gateway.users WHERE email = $1', [email]);
    assert.equal(Number(users.rows[0].n), 0);
  });
});

describe('inviting again', () => {
  test('with another role replaces the pending invitation: the new role counts and the old link is dead', async () => {
    const email = `twice-${unique()}@example.com`;
    const first = await invite(email, 'owner');
    const oldLink = await mailedLink(stack.mailbox, email, MAIL.invitation);
    const second = await invite(email, 'read_only');
    assert.notEqual(second.id, first.id);
    await stack.mailbox.waitFor(email, MAIL.invitation, 2);
    const newLink = await mailedLink(stack.mailbox, email, MAIL.invitation);
    assert.notEqual(newLink, oldLink);
    const pending = (await owner.call('GET', '/members')).body.invitations.filter((i: { email: string }) => i.email === email);
    assert.deepEqual(pending.map((i: { role: string }) => i.role), ['read_only']);

    const stale = await new DashboardBrowser(stack.baseUrl).call('POST', '/invitations/accept', { token: tokenOf(oldLink), password: PASSWORD });
    assert.deepEqual([stale.status, stale.body.error.code], [422, 'invalid_token']);
    const joined = await new DashboardBrowser(stack.baseUrl).call('POST', '/invitations/accept', { token: tokenOf(newLink), password: PASSWORD });
    assert.deepEqual([joined.status, joined.body.role, joined.body.merchant.id], [201, 'read_only', merchantId]);
  });

  test('a member\'s email is refused clearly (409 email_taken), and their role stays', async () => {
    const email = `member-${unique()}@example.com`;
    await join(email, 'developer');
    const again = await owner.call('POST', '/invitations', { email, role: 'owner' });
    assert.deepEqual([again.status, again.body.error.code, again.body.error.param], [409, 'email_taken', 'email']);
    const member = (await owner.call('GET', '/members')).body.data.find((m: { email: string }) => m.email === email);
    assert.equal(member.role, 'developer');
  });
});
