import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDisputeStore } from '../services/payments/disputes/index.js';
import { createDisputeReminders, type DisputeReminders } from '../services/payments/jobs/index.js';
import { createStore } from '../services/payments/payments/index.js';
import { systemClock } from '../services/platform/clock.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { DashboardBrowser, tokenOf } from './helpers/dashboard-browser.js';
import { eventually } from './helpers/eventually.js';
import { linkInRaw, startSmtpStandIn, type SmtpStandIn } from './helpers/smtp-stand-in.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// The evidence-deadline reminder through the whole stack (docs/disputes.md, "Reminder"): a sandbox
// dispute whose deadline is 2 days ahead gets exactly one dispute.updated with evidence_days_left
// and one mail to the merchant's owner (nodemailer to a real SMTP server on loopback) per day, while
// the reminder job runs again and again on two runners at once (two pools, as two replicas would),
// beside the stack's own payments part running it too. Nothing once the deadline has passed.

const PASSWORD = 'correct horse battery staple';
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

describe('dispute evidence-deadline reminders', () => {
  let smtp: SmtpStandIn;
  let stack: TestStack;
  const pools: Pool[] = [];
  let runners: DisputeReminders[] = [];
  const owner = `reminded-${unique()}@example.com`;
  let key = '';
  let disputeId = '';

  before(async () => {
    const smtpPassword = `smtp-${unique()}`;
    smtp = await startSmtpStandIn({ user: 'svc-mailer', password: smtpPassword });
    stack = await startTestStack({
      configuredMailer: true,
      // The gateway takes reminders to mail on this interval.
      env: {
        SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), SMTP_USER: 'svc-mailer', SMTP_PASSWORD: smtpPassword,
        MAIL_FROM: 'Payments <no-reply@payments.example>', WEBHOOK_SWEEP_MS: '100',
      },
    });
    const logger = createLogger('test', 'silent');
    runners = [0, 1].map(() => {
      const pool = createPool(stack.db.url, 'payments', 4);
      pools.push(pool);
      return createDisputeReminders({
        pool, store: createStore(pool), disputes: createDisputeStore(pool), clock: systemClock, relay: { kick() {} }, logger, intervalMs: 60_000,
      });
    });

    const browser = new DashboardBrowser(stack.baseUrl);
    assert.equal((await browser.call('POST', '/register', { email: owner, password: PASSWORD, merchant_name: 'Reminded shop' })).status, 202);
    const confirmed = await browser.call('POST', '/register/confirm', { token: tokenOf(linkInRaw((await smtp.waitFor(owner)).raw)) });
    assert.equal(confirmed.status, 201, JSON.stringify(confirmed.body));
    key = (await browser.call('POST', '/keys', { name: 'shop' })).body.secret;
    const paid = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 2500, currency: 'EUR', payment_method: 'card', test_scenario: 'dispute' },
    });
    assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
    disputeId = (await eventually('the sandbox dispute', async () =>
      (await request(stack.baseUrl, 'GET', `/v1/disputes?payment_id=${paid.body.id}`, { key })).body.data[0])).id;
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await stack?.close();
    await smtp?.close();
  });

  /** Every runner sweeping `times` times, all at once. */
  const runEverywhere = (times = 5) => Promise.all(Array.from({ length: times }, () => runners.map((r) => r.runDue())).flat());
  /** The reminders' events in payments' outbox, oldest first: their evidence_days_left. */
  const reminderEvents = async () => (await stack.query(
    `SELECT (payload->'data'->'object'->>'evidence_days_left')::int AS left FROM payments.outbox
     WHERE type = 'dispute.updated' AND payload->'data'->'object'->>'id' = $1 AND payload->'data'->'object' ? 'evidence_days_left'
     ORDER BY created_at`, [disputeId])).rows.map((r) => r.left as number);
  const reminderMails = () => smtp.received.filter((m) => m.to.includes(owner) && /Subject: Dispute evidence due/.test(m.raw));
  /** What the gateway mails arrives within its interval; a further second shows nothing more follows. */
  const settledMails = async (count: number) => {
    await eventually(`${count} reminder mails`, async () => (reminderMails().length >= count ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return reminderMails();
  };
  /** A day passes for the dispute: its deadline and its last reminder move a day (or `hours`) nearer. */
  const dayPasses = (hours = 24) => stack.query(
    `UPDATE payments.disputes SET evidence_due_by = evidence_due_by - make_interval(hours => $2),
       last_reminded_at = last_reminded_at - make_interval(hours => $2) WHERE id = $1`, [disputeId, hours]);

  test('a deadline 7 days ahead is not reminded yet', async () => {
    await runEverywhere(2);
    assert.deepEqual(await reminderEvents(), []);
  });

  test('2 days ahead: one dispute.updated with evidence_days_left 2 and one mail, however often and wherever the job runs', async () => {
    await stack.query(`UPDATE payments.disputes SET evidence_due_by = now() + interval '2 days' - interval '1 minute' WHERE id = $1`, [disputeId]);
    await runEverywhere();
    await runEverywhere();
    assert.deepEqual(await reminderEvents(), [2]);
    const mails = await settledMails(1);
    assert.equal(mails.length, 1);
    assert.match(mails[0]!.raw, /Subject: Dispute evidence due in 2 days: 25\.00 EUR/);
    // Quoted-printable: soft line breaks joined again, as the owner's mail client shows the text.
    const text = mails[0]!.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    assert.ok(text.includes(`${stack.baseUrl}/dashboard/disputes/${disputeId})`), text);
    assert.match(text, /2 days left/);

    // The merchant's Events API lists it with the days left, the dispute otherwise as GET shows it.
    const listed = await eventually('the reminder in the Events API', async () => {
      const events = (await request(stack.baseUrl, 'GET', '/v1/events?type=dispute.updated&limit=100', { key })).body.data ?? [];
      return events.find((e: any) => e.data.object.id === disputeId && e.data.object.evidence_days_left === 2);
    });
    const current = (await request(stack.baseUrl, 'GET', `/v1/disputes/${disputeId}`, { key })).body;
    const { evidence_days_left: _left, ...object } = listed.data.object;
    assert.deepEqual(object, current);
  });

  test('23 hours later nothing more; a day later one more, with 1 day left', async () => {
    await dayPasses(23);
    await runEverywhere();
    assert.deepEqual(await reminderEvents(), [2]);
    await dayPasses(1);
    await runEverywhere();
    await runEverywhere();
    assert.deepEqual(await reminderEvents(), [2, 1]);
    const mails = await settledMails(2);
    assert.equal(mails.length, 2);
    assert.match(mails[1]!.raw, /Subject: Dispute evidence due in 1 day: 25\.00 EUR/);
  });

  test('once the deadline has passed, no reminder', async () => {
    await dayPasses(24);
    await runEverywhere();
    assert.deepEqual(await reminderEvents(), [2, 1]);
    assert.equal((await settledMails(2)).length, 2);
  });
});
