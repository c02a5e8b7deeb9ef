// Endpoint health through the whole stack with an injectable clock: an endpoint that fails every
// delivery for WEBHOOK_DISABLE_AFTER_HOURS (5 days by default) is disabled, its merchant's owner is
// mailed, the dashboard and the management API show why, with its success rate and next retry;
// enabling it again delivers what was pending, and recovery resends what failed before.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runCli } from '../cli/main.js';
import { DashboardBrowser, registerByMail } from './helpers/dashboard-browser.js';
import { offsetClock, startTestStack, type TestStack } from './helpers/stack.js';
import { eventually, startReceiver, type Receiver } from './webhooks-support.js';

const DAY = 86_400_000;
const PASSWORD = 'correct horse battery staple';
const clock = offsetClock();
let stack: TestStack;
let receiver: Receiver;

before(async () => {
  stack = await startTestStack({ clock, env: { WEBHOOK_SWEEP_MS: '200', WEBHOOK_POLL_MS: '50' } });
  receiver = await startReceiver(503);
});
after(async () => {
  await receiver?.close();
  await stack?.close();
});

test('an endpoint failing every delivery for five days is disabled, its owner mailed; enabled again, it gets what was pending', async () => {
  const browser = new DashboardBrowser(stack.baseUrl);
  const email = `owner-${Date.now().toString(36)}@example.com`;
  const session = await registerByMail(browser, stack.mailbox, { email, password: PASSWORD, merchant_name: 'Health shop' });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  const projectId = session.body.project.id;
  const created = await browser.call('POST', '/webhook-endpoints', { url: receiver.url, events: ['*'] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.id;
  const show = async () => (await stack.manage('GET', `/projects/${projectId}/webhook-endpoints/${id}?mode=test`)).body;

  assert.equal((await browser.call('POST', '/webhooks/test', { event_type: 'payment.successful' })).status, 200);
  await receiver.waitFor(1);
  const failing = await eventually(async () => {
    const e = await show();
    return e.failing_since && e.health.next_retry_at ? e : undefined;
  });
  assert.equal(failing.status, 'enabled');
  assert.equal(failing.health.attempts_24h, 1);
  assert.equal(failing.health.success_rate_24h, 0);
  assert.equal(failing.health.pending_deliveries, 1);
  assert.equal(Date.parse(failing.health.next_retry_at) - Date.parse(failing.failing_since), 30_000, 'the contract\'s second attempt');

  // Four days on: failing, but not for long enough.
  clock.offsetMs += 4 * DAY;
  await receiver.waitFor(2);
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.equal((await show()).status, 'enabled', 'four days of failures are not enough');

  // Past five days, and a retry fails then: disabled, with why, and the owner told.
  clock.offsetMs += DAY + 60_000;
  const disabled = await eventually(async () => {
    const e = await show();
    return e.status === 'disabled' ? e : undefined;
  }, 15_000, 'the endpoint disabled');
  assert.equal(disabled.disabled_reason, 'failing');
  assert.ok(Date.parse(disabled.disabled_at) - Date.parse(disabled.failing_since) >= 5 * DAY);
  const mail = await stack.mailbox.waitFor(email, /^Webhook endpoint disabled/);
  assert.match(mail.text, new RegExp(id));
  assert.match(mail.text, /every delivery to it has failed since/);
  // The dashboard shows why (a new session: the first one's idle limit passed with the clock).
  const later = new DashboardBrowser(stack.baseUrl);
  assert.equal((await later.call('POST', '/sign-in', { email, password: PASSWORD })).status, 200);
  const inDashboard = await later.call('GET', `/webhook-endpoints/${id}`);
  assert.equal(inDashboard.status, 200);
  assert.equal(inDashboard.body.disabled_reason, 'failing');
  assert.equal(inDashboard.body.failing_since, disabled.failing_since);
  const attemptsBefore = receiver.received.length;
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(receiver.received.length, attemptsBefore, 'nothing is sent to a disabled endpoint');
  // Nor is a recovery of it started, through the management API or the dashboard's session API.
  const since = new Date(clock.now().getTime() - 10 * DAY).toISOString();
  for (const refused of [
    await stack.manage('POST', `/projects/${projectId}/webhook-endpoints/${id}/recover?mode=test`, { since }),
    await later.call('POST', `/webhook-endpoints/${id}/recover`, { since }),
  ]) {
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error.type, 'state_error');
    assert.equal(refused.body.error.code, 'invalid_state_transition');
    assert.match(refused.body.error.message, /is disabled/);
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(receiver.received.length, attemptsBefore, 'recover sent nothing to the disabled endpoint');

  // Fixed and enabled again: the pending delivery goes at once, and the endpoint is healthy.
  receiver.setBehaviour(200);
  const enabled = await stack.manage('POST', `/projects/${projectId}/webhook-endpoints/${id}/enable?mode=test`);
  assert.equal(enabled.status, 200);
  assert.equal(enabled.body.disabled_reason, null);
  await receiver.waitFor(attemptsBefore + 1);
  // Healthy once the success is read back with its attempt: waited for as one, so a loaded machine's
  // slower statements cannot catch the endpoint between two of its figures.
  const healthy = await eventually(async () => {
    const e = await show();
    return e.health.pending_deliveries === 0 && e.failing_since === null && e.health.success_rate_24h > 0 ? e : undefined;
  });
  assert.equal(healthy.status, 'enabled');
  assert.equal(stack.mailbox.to(email).filter((m) => /^Webhook endpoint disabled/.test(m.subject)).length, 1, 'mailed once');

  // The management API and the CLI's path for "resend everything that failed since T" answer for it.
  const recovered = await stack.manage('POST', `/projects/${projectId}/webhook-endpoints/${id}/recover?mode=test`, {
    since: new Date(clock.now().getTime() - 10 * DAY).toISOString(),
  });
  assert.equal(recovered.status, 200, JSON.stringify(recovered.body));
  assert.equal(recovered.body.deliveries, 0, 'nothing failed is left');
  const bad = await stack.manage('POST', `/projects/${projectId}/webhook-endpoints/${id}/recover?mode=test`, { since: 'yesterday' });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.param, 'since');

  // The same through svc: a rate set and shown with the endpoint's health, and recover.
  const scoped = ['--project', projectId, '--mode', 'test'];
  const rated = await svc('endpoint', 'update', id, ...scoped, '--max-per-second', '7');
  assert.equal(rated.code, 0, rated.stderr);
  assert.match(rated.stdout, /max 7\/s/);
  const listed = await svc('endpoint', 'list', ...scoped);
  assert.match(listed.stdout, new RegExp(`${id} .* max 7/s {2}24h: \\d+% of \\d+ ok`));
  assert.equal((await show()).max_deliveries_per_second, 7);
  const recover = await svc('endpoint', 'recover', id, ...scoped, '--since', '2026-01-01T00:00:00Z');
  assert.equal(recover.code, 0, recover.stderr);
  assert.match(recover.stdout, new RegExp(`^${id}: 0 failed deliveries since 2026-01-01T00:00:00.000Z are being resent`));
  assert.equal((await svc('endpoint', 'recover', id, ...scoped)).code, 2, '--since is required');
  assert.equal((await svc('endpoint', 'update', id, ...scoped, '--max-per-second', 'fast')).code, 2);
});

async function svc(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd: process.cwd(),
    env: { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken },
  });
  return { code, stdout, stderr };
}
