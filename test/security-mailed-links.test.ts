import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { MAIL_LIMIT_PER_ADDRESS } from '../gateway/store/mail-throttle.js';
import { createLogger } from '../services/platform/logger.js';
import { DashboardBrowser, MAIL, mailedLink, registerByMail, tokenOf } from './helpers/dashboard-browser.js';
import { eventually } from './helpers/eventually.js';
import { startGatewayProcesses, type GatewayProcess } from './helpers/gateways.js';
import { captureLogs } from './helpers/log-sink.js';
import { linkInRaw, startSmtpStandIn, type SmtpStandIn } from './helpers/smtp-stand-in.js';
import { offsetClock, startTestStack, type TestStack } from './helpers/stack.js';

// Mailed links and registration, attacked from outside: a reset asked with
// `Host: attacker.example`, tokens read from the log, a mailbox flooded with resets, registration
// telling who has an account, and mailed links that are never swept.

const PASSWORD = 'correct horse battery';
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const clock = offsetClock();
let stack: TestStack;

/** A dashboard API call with the Host header the sender chose (fetch keeps its own). */
function postWithHost(baseUrl: string, path: string, body: unknown, host: string, headers: Record<string, string> = {}) {
  const url = new URL(`${baseUrl}/dashboard/api${path}`);
  const data = JSON.stringify(body);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST',
      headers: { host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers },
    }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

async function registered(name: string) {
  const browser = new DashboardBrowser(stack.baseUrl);
  const email = `owner-${unique()}@example.com`;
  const res = await registerByMail(browser, stack.mailbox, { email, password: PASSWORD, merchant_name: name });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { browser, email, userId: res.body.user.id as string };
}

const count = async (sql: string, params: unknown[]) => Number((await stack.query(sql, params)).rows[0].n);

before(async () => {
  stack = await startTestStack({ clock, env: { DASHBOARD_SWEEP_MS: '100' } });
});
after(async () => stack?.close());

describe('links come from configuration, never from the Host header', () => {
  test('a reset and an invitation asked with Host: attacker.example link to the deployment\'s own address', async () => {
    const { browser, email } = await registered('Host shop');
    const asked = await postWithHost(stack.baseUrl, '/password-reset', { email }, 'attacker.example');
    assert.deepEqual([asked.status, asked.body], [202, { accepted: true, link_delivery: 'email' }]);
    const link = await mailedLink(stack.mailbox, email, MAIL.reset);
    assert.ok(link.startsWith(`${stack.baseUrl}/dashboard/reset?token=`), link);

    const member = `member-${unique()}@example.com`;
    const invited = await postWithHost(stack.baseUrl, '/invitations', { email: member, role: 'developer' }, 'attacker.example', {
      cookie: `svc_session=${browser.cookie}`, 'x-csrf-token': browser.csrf!,
    });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    const invitation = await mailedLink(stack.mailbox, member, MAIL.invitation);
    assert.ok(invitation.startsWith(`${stack.baseUrl}/dashboard/invitation?token=`), invitation);
    assert.ok(stack.mailbox.messages.every((m) => !m.text.includes('attacker.example')));
  });

  describe('a gateway run on its own without PUBLIC_BASE_URL (the chart\'s default)', () => {
    let gateway: GatewayProcess;
    before(async () => {
      [gateway] = await startGatewayProcesses(stack, 1, { LOG_LEVEL: 'trace' });
    });
    after(async () => gateway?.process.stop());

    test('says at start that PUBLIC_BASE_URL and SMTP_HOST are missing', () => {
      const warnings = gateway.process.output().split('\n').filter((l) => l.includes('"level":40'));
      assert.ok(warnings.some((l) => l.includes('PUBLIC_BASE_URL is not set')), gateway.process.output());
      assert.ok(warnings.some((l) => l.includes('SMTP_HOST is not set')), gateway.process.output());
    });

    test('refuses to mail: 503 not_configured naming PUBLIC_BASE_URL, no token made, nothing mailed or logged', async () => {
      const { browser, email, userId } = await registered('Unconfigured shop');
      const before = stack.mailbox.messages.length;
      const reset = await postWithHost(gateway.baseUrl, '/password-reset', { email }, 'attacker.example');
      assert.deepEqual([reset.status, reset.body.error.type, reset.body.error.code], [503, 'internal_error', 'not_configured']);
      assert.match(reset.body.error.message, /PUBLIC_BASE_URL/);
      assert.ok(reset.headers['x-request-id']);
      const register = await postWithHost(gateway.baseUrl, '/register', {
        email: `new-${unique()}@example.com`, password: PASSWORD, merchant_name: 'Nope',
      }, 'attacker.example');
      assert.deepEqual([register.status, register.body.error.code], [503, 'not_configured']);
      const invite = await postWithHost(gateway.baseUrl, '/invitations', { email: `m-${unique()}@example.com`, role: 'owner' }, 'attacker.example', {
        cookie: `svc_session=${browser.cookie}`, 'x-csrf-token': browser.csrf!,
      });
      assert.deepEqual([invite.status, invite.body.error.code], [503, 'not_configured']);

      assert.equal(await count('SELECT count(*) AS n FROM gateway.password_resets WHERE user_id = $1', [userId]), 0);
      assert.equal(await count('SELECT count(*) AS n FROM gateway.registrations', []), 0);
      assert.equal(await count(
        `SELECT count(*) AS n FROM gateway.invitations i JOIN gateway.memberships m ON m.merchant_id = i.merchant_id
         WHERE m.user_id = $1`, [userId]), 0);
      assert.equal(stack.mailbox.messages.length, before);
      // The request lines name the Host the attacker sent; no link anywhere, to it or with a token.
      assert.doesNotMatch(gateway.process.output(), /:\/\/attacker\.example|token=|mail to \S+ not delivered/);
    });
  });
});

/** Every token-shaped string in `text` whose SHA-256 is a stored link's: a link someone could use. */
async function storedTokensIn(text: string): Promise<string[]> {
  const candidates = [...new Set(text.match(/[A-Za-z0-9_-]{43}/g) ?? [])];
  const hashes = candidates.map((c) => createHash('sha256').update(c).digest('hex'));
  const { rows } = await stack.query(
    `SELECT token_hash FROM gateway.password_resets WHERE token_hash = ANY($1)
     UNION SELECT token_hash FROM gateway.invitations WHERE token_hash = ANY($1)
     UNION SELECT token_hash FROM gateway.registrations WHERE token_hash = ANY($1)`, [hashes],
  );
  return candidates.filter((_c, i) => rows.some((r) => r.token_hash === hashes[i]));
}

describe('no token in any log line', () => {
  test('without a mail transport the gateway logs recipient and subject at trace, never the link', async () => {
    const { browser, email } = await registered('Log shop');
    const [gateway] = await startGatewayProcesses(stack, 1, { LOG_LEVEL: 'trace', PUBLIC_BASE_URL: stack.baseUrl });
    try {
      const asked = await postWithHost(gateway.baseUrl, '/password-reset', { email }, '127.0.0.1');
      assert.equal(asked.status, 202);
      const member = `logged-${unique()}@example.com`;
      const invited = await postWithHost(gateway.baseUrl, '/invitations', { email: member, role: 'read_only' }, '127.0.0.1', {
        cookie: `svc_session=${browser.cookie}`, 'x-csrf-token': browser.csrf!,
      });
      assert.equal(invited.status, 201, JSON.stringify(invited.body));
      // The mails were due: the log says so, by recipient and subject.
      // Each is logged when it is sent, which may be after its request was answered.
      await eventually('the reset mail logged', async () => (gateway.process.output().includes(`mail to ${email} not delivered`) ? true : undefined));
      await eventually('the invitation logged', async () => (gateway.process.output().includes(`mail to ${member} not delivered`) ? true : undefined));
      assert.doesNotMatch(gateway.process.output(), /token=/);
      assert.deepEqual(await storedTokensIn(gateway.process.output()), []);
    } finally {
      await gateway.process.stop();
    }
  });

  describe('through a real SMTP server (nodemailer to smtp-server on loopback)', () => {
    let smtp: SmtpStandIn;
    let mailing: TestStack;
    const { stream, lines } = captureLogs();
    const smtpPassword = `smtp-${unique()}-secret`;
    before(async () => {
      smtp = await startSmtpStandIn({ user: 'svc-mailer', password: smtpPassword });
      mailing = await startTestStack({
        configuredMailer: true,
        logger: createLogger('test', 'trace', stream),
        env: {
          LOG_LEVEL: 'trace', SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), SMTP_USER: 'svc-mailer',
          SMTP_PASSWORD: smtpPassword, MAIL_FROM: 'Payments <no-reply@payments.example>',
        },
      });
    });
    after(async () => {
      await mailing?.close();
      await smtp?.close();
    });

    test('registration, reset and invitation arrive by SMTP, authenticated, and no token or password is logged', async () => {
      const email = `smtp-${unique()}@example.com`;
      const browser = new DashboardBrowser(mailing.baseUrl);
      assert.equal((await browser.call('POST', '/register', { email, password: PASSWORD, merchant_name: 'SMTP shop' })).status, 202);
      const confirmMail = await smtp.waitFor(email, /Confirm your dashboard account/);
      assert.deepEqual([confirmMail.from, confirmMail.to, confirmMail.user], ['no-reply@payments.example', [email], 'svc-mailer']);
      const confirmLink = linkInRaw(confirmMail.raw);
      assert.ok(confirmLink.startsWith(`${mailing.baseUrl}/dashboard/confirm?token=`), confirmLink);
      const confirmed = await browser.call('POST', '/register/confirm', { token: tokenOf(confirmLink) });
      assert.equal(confirmed.status, 201, JSON.stringify(confirmed.body));

      assert.equal((await new DashboardBrowser(mailing.baseUrl).call('POST', '/password-reset', { email })).status, 202);
      const resetLink = linkInRaw((await smtp.waitFor(email, /Reset your password/)).raw);
      const member = `smtp-member-${unique()}@example.com`;
      assert.equal((await browser.call('POST', '/invitations', { email: member, role: 'developer' })).status, 201);
      const inviteLink = linkInRaw((await smtp.waitFor(member)).raw);

      const logged = lines.join('');
      assert.ok(lines.length > 0, 'the log (at trace) was written');
      for (const secret of [tokenOf(confirmLink), tokenOf(resetLink), tokenOf(inviteLink), smtpPassword, PASSWORD]) {
        assert.ok(!logged.includes(secret), 'a token or password in the log');
      }
      assert.doesNotMatch(logged, /token=/);
    });
  });
});

describe('mail is throttled per address', () => {
  test(`40 resets to one address in a second: 40 identical 202s, at most ${MAIL_LIMIT_PER_ADDRESS} mails`, async () => {
    const { email, userId } = await registered('Flooded shop');
    const answers = await Promise.all(Array.from({ length: 40 }, () =>
      new DashboardBrowser(stack.baseUrl).call('POST', '/password-reset', { email })));
    assert.deepEqual(new Set(answers.map((a) => `${a.status} ${JSON.stringify(a.body)}`)), new Set(['202 {"accepted":true,"link_delivery":"email"}']));
    // The registration link was the address's first mail of the hour.
    await stack.mailbox.waitFor(email, MAIL.reset, MAIL_LIMIT_PER_ADDRESS - 1);
    await eventually('the budget spent', async () =>
      (await count('SELECT count(*) AS n FROM gateway.mail_sends WHERE email = $1', [email])) === MAIL_LIMIT_PER_ADDRESS ? true : undefined);
    assert.equal(stack.mailbox.to(email).length, MAIL_LIMIT_PER_ADDRESS);
    assert.equal(await count('SELECT count(*) AS n FROM gateway.password_resets WHERE user_id = $1', [userId]), MAIL_LIMIT_PER_ADDRESS - 1);
  });
});

describe('registration reveals nothing', () => {
  test('a taken email is answered exactly like a new one; its owner is mailed, and no second account is made', async () => {
    const { email } = await registered('Known shop');
    const fresh = `fresh-${unique()}@example.com`;
    const ask = (address: string) => new DashboardBrowser(stack.baseUrl).call('POST', '/register', {
      email: address, password: PASSWORD, merchant_name: 'Squatter',
    });
    const [taken, unknown] = [await ask(email.toUpperCase()), await ask(fresh)];
    assert.deepEqual([taken.status, taken.body], [unknown.status, unknown.body]);
    assert.deepEqual([taken.status, taken.body], [202, { accepted: true, link_delivery: 'email' }]);
    assert.equal(taken.headers.get('content-type'), unknown.headers.get('content-type'));

    const notice = await stack.mailbox.waitFor(email, /tried to register/);
    assert.match(notice.text, new RegExp(`${stack.baseUrl}/dashboard/sign-in`));
    assert.doesNotMatch(notice.text, /token=/);
    const link = await mailedLink(stack.mailbox, fresh, MAIL.confirm);
    assert.equal(await count('SELECT count(*) AS n FROM gateway.users WHERE email = $1', [email]), 1);
    assert.equal(await count('SELECT count(*) AS n FROM gateway.registrations WHERE email = $1', [email]), 0);
    assert.equal(await count('SELECT count(*) AS n FROM gateway.users WHERE email = $1', [fresh]), 0);

    const browser = new DashboardBrowser(stack.baseUrl);
    const confirmed = await browser.call('POST', '/register/confirm', { token: tokenOf(link) });
    assert.deepEqual([confirmed.status, confirmed.body.user.email, confirmed.body.role], [201, fresh, 'owner']);
    assert.equal((await browser.call('GET', '/session')).status, 200);
    const again = await new DashboardBrowser(stack.baseUrl).call('POST', '/register/confirm', { token: tokenOf(link) });
    assert.deepEqual([again.status, again.body.error.code, again.body.error.param], [422, 'invalid_token', 'token']);
  });
});

describe('the sweep', () => {
  test('expired resets, invitations and registrations, and throttle rows past their window, are deleted', async () => {
    const { browser, email } = await registered('Swept shop');
    assert.equal((await browser.call('POST', '/invitations', { email: `swept-${unique()}@example.com`, role: 'developer' })).status, 201);
    assert.equal((await new DashboardBrowser(stack.baseUrl).call('POST', '/password-reset', { email })).status, 202);
    await stack.mailbox.waitFor(email, MAIL.reset);
    assert.equal((await new DashboardBrowser(stack.baseUrl).call('POST', '/register', {
      email: `pending-${unique()}@example.com`, password: PASSWORD, merchant_name: 'Never confirmed',
    })).status, 202);
    await new DashboardBrowser(stack.baseUrl).call('POST', '/sign-in', { email, password: 'not the password' });
    const tables = ['password_resets', 'invitations', 'registrations', 'mail_sends', 'sign_in_attempts'];
    const counts = async () => Promise.all(tables.map((t) => count(`SELECT count(*) AS n FROM gateway.${t}`, [])));
    await eventually('rows of every kind', async () => ((await counts()).every((n) => n > 0) ? true : undefined));

    clock.offsetMs += 8 * 24 * 3_600_000; // past every lifetime and window (invitations: seven days)
    await eventually('the sweep', async () => ((await counts()).every((n) => n === 0) ? true : undefined));
    // What is still current stays: a reset asked now.
    assert.equal((await new DashboardBrowser(stack.baseUrl).call('POST', '/password-reset', { email })).status, 202);
    await stack.mailbox.waitFor(email, MAIL.reset, 2);
    await new Promise((r) => setTimeout(r, 300)); // a few sweep intervals
    assert.equal(await count('SELECT count(*) AS n FROM gateway.password_resets', []), 1);
  });
});
