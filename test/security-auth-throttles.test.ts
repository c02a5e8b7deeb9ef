import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../services/platform/config.js';
import { hashingStats, MAX_HASHES_IN_FLIGHT } from '../gateway/dashboard/hash-gate.js';
import { FREE_FAILURES } from '../gateway/store/throttle-rule.js';
import { newToken } from '../gateway/dashboard/tokens.js';
import { DashboardBrowser, MAIL, mailedLink, registerByMail, tokenOf, type DashboardAnswer } from './helpers/dashboard-browser.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

// Password reset and sign-in under attack, reproduced against the whole stack over HTTP:
//  - unauthenticated scrypt work: a bogus reset confirm hashed before its token was checked, nothing
//    was throttled per address, and a burst of hashing queued the process (/v1 p50 65 → 239 ms);
//  - lockouts: five wrong sign-ins locked the owner out from that address for 15 minutes, and six
//    wrong operator tokens locked every operator out behind a proxy outside TRUSTED_PROXIES.
// The stack runs with the deployment's per-address limits (the test helper raises them elsewhere) and
// trusts the loopback proxy, so each test speaks from addresses of its own (X-Forwarded-For).

const clock = offsetClock();
const defaults = loadConfig({});
const PASSWORD = 'correct horse battery';
let stack: TestStack;
let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
const anonymous = () => new DashboardBrowser(stack.baseUrl);

/** Moves the stack's clock to the start of a fresh clock minute, so a burst stays inside one throttle window. */
function freshMinute(): void {
  const now = clock.now().getTime();
  clock.offsetMs += 60_000 - (now % 60_000) + 5;
}

async function registered(address: string) {
  const email = `owner-${unique()}@example.com`;
  const res = await registerByMail(anonymous(), stack.mailbox, { email, password: PASSWORD, merchant_name: 'Throttle shop' }, from(address));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return email;
}

const registrationCount = async (email: string) =>
  Number((await stack.query('SELECT count(*) FROM gateway.registrations WHERE email = $1', [email])).rows[0].count);
const resetCount = async (email: string) => Number((await stack.query(
  'SELECT count(*) FROM gateway.password_resets r JOIN gateway.users u ON u.id = r.user_id WHERE u.email = $1', [email],
)).rows[0].count);

/** The contract's 429 of a throttle: envelope, type, code, Retry-After within `maxSeconds`, x-request-id. */
function assertThrottled(res: DashboardAnswer, maxSeconds: number, what: string): number {
  assert.equal(res.status, 429, `${what}: ${JSON.stringify(res.body)}`);
  assert.deepEqual([res.body.error.type, res.body.error.code], ['rate_limit_error', 'rate_limited'], what);
  const wait = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= maxSeconds, `${what}: retry-after ${res.headers.get('retry-after')}`);
  assert.ok(res.headers.get('x-request-id'), `${what}: x-request-id`);
  assert.equal(res.body.request_id, res.headers.get('x-request-id'));
  return wait;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

before(async () => {
  stack = await startTestStack({
    clock,
    env: {
      TRUSTED_PROXIES: '127.0.0.1,::1',
      AUTH_THROTTLE_PER_MINUTE: String(defaults.authThrottlePerMinute),
      SIGN_IN_THROTTLE_PER_MINUTE: String(defaults.signInThrottlePerMinute),
    },
  });
});
after(async () => stack?.close());

describe('reset links: no scrypt work for a bogus reset link', () => {
  test('sixteen concurrent confirms with bogus tokens are 422 invalid_token and hash nothing; a real link still hashes once', async () => {
    const before = hashingStats().computed;
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      anonymous().call('POST', '/password-reset/confirm', { token: newToken(), password: 'a brand new password' }, from(`198.18.5.${i + 1}`))));
    for (const res of answers) {
      assert.deepEqual([res.status, res.body.error.code, res.body.error.param], [422, 'invalid_token', 'token'], JSON.stringify(res.body));
    }
    assert.equal(hashingStats().computed - before, 0, 'no password was hashed for a bogus link');

    const email = await registered('198.18.5.100');
    const asked = await anonymous().call('POST', '/password-reset', { email }, from('198.18.5.100'));
    assert.equal(asked.status, 202);
    const token = tokenOf(await mailedLink(stack.mailbox, email, MAIL.reset));
    const hashedBefore = hashingStats().computed;
    const done = await anonymous().call('POST', '/password-reset/confirm', { token, password: 'a brand new password' }, from('198.18.5.100'));
    assert.deepEqual([done.status, done.body], [200, { password_reset: true }]);
    assert.equal(hashingStats().computed - hashedBefore, 1);
    // Used: the same link is now as bogus as any, and costs nothing either.
    const again = await anonymous().call('POST', '/password-reset/confirm', { token, password: 'another new password' }, from('198.18.5.100'));
    assert.deepEqual([again.status, again.body.error.code], [422, 'invalid_token']);
    assert.equal(hashingStats().computed - hashedBefore, 1);
  });
});

describe('reset links: per-address throttles (429 rate_limited, Retry-After, nothing done)', () => {
  const limit = defaults.authThrottlePerMinute;

  test(`register: ${limit} a minute per address, then 429 and no account; another address still registers`, async () => {
    freshMinute();
    for (let i = 0; i < limit; i++) {
      const res = await anonymous().call('POST', '/register', { email: `x-${unique()}@example.com`, password: 'short', merchant_name: 'X' }, from('198.18.1.1'));
      assert.deepEqual([res.status, res.body.error.code], [422, 'validation_error']);
    }
    const email = `late-${unique()}@example.com`;
    const refused = await anonymous().call('POST', '/register', { email, password: PASSWORD, merchant_name: 'Late' }, from('198.18.1.1'));
    assertThrottled(refused, 60, 'register');
    assert.equal(await registrationCount(email), 0, 'a throttled registration creates nothing');
    await registered('198.18.1.2');
  });

  test(`password reset: ${limit} a minute per address, then 429 and no link is made or mailed`, async () => {
    const email = await registered('198.18.2.100');
    freshMinute();
    for (let i = 0; i < limit; i++) {
      const res = await anonymous().call('POST', '/password-reset', { email: `nobody-${unique()}@example.com` }, from('198.18.2.1'));
      assert.equal(res.status, 202);
    }
    const mailsBefore = stack.mailbox.to(email).length;
    const refused = await anonymous().call('POST', '/password-reset', { email }, from('198.18.2.1'));
    assertThrottled(refused, 60, 'password reset');
    assert.equal(await resetCount(email), 0);
    assert.equal(stack.mailbox.to(email).length, mailsBefore, 'nothing mailed');
  });

  test(`reset confirm: ${limit} a minute per address, then 429 even with a good link, which stays usable`, async () => {
    const email = await registered('198.18.3.100');
    await anonymous().call('POST', '/password-reset', { email }, from('198.18.3.100'));
    const token = tokenOf(await mailedLink(stack.mailbox, email, MAIL.reset));
    freshMinute();
    for (let i = 0; i < limit; i++) {
      const res = await anonymous().call('POST', '/password-reset/confirm', { token: newToken(), password: 'a brand new password' }, from('198.18.3.1'));
      assert.deepEqual([res.status, res.body.error.code], [422, 'invalid_token']);
    }
    const refused = await anonymous().call('POST', '/password-reset/confirm', { token, password: 'a brand new password' }, from('198.18.3.1'));
    assertThrottled(refused, 60, 'confirm');
    // Nothing changed: the old password still signs in, the link still works from elsewhere.
    assert.equal((await anonymous().call('POST', '/sign-in', { email, password: PASSWORD }, from('198.18.3.2'))).status, 200);
    const elsewhere = await anonymous().call('POST', '/password-reset/confirm', { token, password: 'a brand new password' }, from('198.18.3.2'));
    assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
  });

  test(`sign-in: ${defaults.signInThrottlePerMinute} a minute per address, then 429 even with the right password, and no session`, async () => {
    const email = await registered('198.18.4.100');
    freshMinute();
    for (let i = 0; i < defaults.signInThrottlePerMinute; i++) {
      const res = await anonymous().call('POST', '/sign-in', { email: `nobody-${unique()}@example.com`, password: PASSWORD }, from('198.18.4.1'));
      assert.deepEqual([res.status, res.body.error.code], [401, 'invalid_credentials']);
    }
    const browser = anonymous();
    const refused = await browser.call('POST', '/sign-in', { email, password: PASSWORD }, from('198.18.4.1'));
    assertThrottled(refused, 60, 'sign-in');
    assert.equal(browser.cookie, undefined, 'no session');
    assert.equal((await anonymous().call('POST', '/sign-in', { email, password: PASSWORD }, from('198.18.4.2'))).status, 200);
  });
});

describe('reset links: a bound on password hashing in flight', () => {
  test('a burst of registrations and sign-ins is answered 429 beyond the bound at once, never queued; /v1 stays near its baseline', async (t) => {
    const { secret } = await stack.newMerchantKey();
    const list = async () => {
      const started = performance.now();
      const res = await request(stack.baseUrl, 'GET', '/v1/payments?limit=1', { key: secret });
      assert.equal(res.status, 200);
      return performance.now() - started;
    };
    const baseline: number[] = [];
    for (let i = 0; i < 15; i++) baseline.push(await list());

    const email = await registered('198.18.6.100');
    const stats = hashingStats();
    const during: number[] = [];
    let bursting = true;
    const burst = (async () => {
      const answers: Array<{ res: DashboardAnswer; email?: string }> = [];
      for (let wave = 0; wave < 3; wave++) {
        answers.push(...await Promise.all(Array.from({ length: 16 }, async (_, i) => {
          const address = `198.18.${7 + wave}.${i + 1}`;
          if (i % 4 === 3) return { res: await anonymous().call('POST', '/sign-in', { email, password: PASSWORD }, from(address)) };
          const mine = `burst-${unique()}@example.com`;
          return { res: await anonymous().call('POST', '/register', { email: mine, password: PASSWORD, merchant_name: 'Burst' }, from(address)), email: mine };
        })));
      }
      bursting = false;
      return answers;
    })();
    while (bursting) during.push(await list());
    const answers = await burst;

    const refused = answers.filter((a) => a.res.status === 429);
    const done = answers.filter((a) => a.res.status !== 429);
    assert.ok(refused.length > 0, 'some requests were refused by the bound');
    for (const { res } of refused) {
      assertThrottled(res, 1, 'hashing bound');
      assert.match(res.body.error.message, /busy checking passwords/);
    }
    for (const { res } of done) assert.ok([200, 202].includes(res.status), JSON.stringify(res.body));
    for (const a of refused.filter((r) => r.email)) assert.equal(await registrationCount(a.email!), 0, 'a refused registration creates nothing');
    const after = hashingStats();
    assert.ok(after.peakInFlight <= MAX_HASHES_IN_FLIGHT, `peak ${after.peakInFlight}`);
    assert.equal(after.refused - stats.refused, refused.length);
    // A refused sign-in was never checked, so it is no failure of the pair.
    const attempts = await stack.query('SELECT count(*) FROM gateway.sign_in_attempts WHERE email = $1', [email]);
    assert.equal(Number(attempts.rows[0].count), 0);
    // Not queued behind the hashing: loose, relative to the same run's baseline (unbounded, ×3.7).
    const base = median(baseline);
    const busy = median(during);
    t.diagnostic(`/v1 median ${base.toFixed(1)} ms before, ${busy.toFixed(1)} ms during; ${refused.length} of ${answers.length} refused`);
    assert.ok(busy <= base * 4 + 100, `/v1 median ${busy.toFixed(1)} ms during the burst against ${base.toFixed(1)} ms before`);
  });
});

describe('sign-in: slow guesses down, never lock the right password out', () => {
  test(`after ${FREE_FAILURES} wrong sign-ins from an address the owner's right password still signs in from there`, async () => {
    const email = await registered('198.18.10.100');
    for (let i = 0; i < FREE_FAILURES; i++) {
      const wrong = await anonymous().call('POST', '/sign-in', { email, password: 'wrong password!' }, from('198.18.10.1'));
      assert.deepEqual([wrong.status, wrong.body.error.code], [401, 'invalid_credentials']);
    }
    const owner = anonymous();
    const res = await owner.call('POST', '/sign-in', { email, password: PASSWORD }, from('198.18.10.1'));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await owner.call('GET', '/session')).status, 200);
  });

  test('further wrong guesses wait a growing interval (429, Retry-After, unchecked); once it passes the right password signs in', async () => {
    const email = await registered('198.18.11.100');
    const guess = () => anonymous().call('POST', '/sign-in', { email, password: 'wrong password!' }, from('198.18.11.1'));
    // Guess as fast as allowed: past the free failures each wrong one makes the next wait longer.
    const waits: number[] = [];
    for (let failures = 0; failures < FREE_FAILURES + 4;) {
      const res = await guess();
      if (res.status === 429) {
        waits.push(assertThrottled(res, 60, 'guess'));
        clock.offsetMs += waits.at(-1)! * 1000;
        continue;
      }
      assert.deepEqual([res.status, res.body.error.code], [401, 'invalid_credentials']);
      failures += 1;
    }
    assert.ok(waits.length >= 2 && waits.at(-1)! > waits[0], `waits ${waits}`);
    // Right now the interval after the ninth failure (8 s) holds even the right password, unchecked.
    const hashedBefore = hashingStats().computed;
    const early = anonymous();
    const wait = assertThrottled(await early.call('POST', '/sign-in', { email, password: PASSWORD }, from('198.18.11.1')), 8, 'too early');
    assert.ok(wait >= 4, `retry-after ${wait}`);
    assert.equal(early.cookie, undefined);
    assert.equal(hashingStats().computed, hashedBefore, 'an attempt inside the interval is not even checked');
    // The owner elsewhere is not held back at all.
    assert.equal((await anonymous().call('POST', '/sign-in', { email, password: PASSWORD }, from('198.18.11.2'))).status, 200);
    // Once the interval has passed, the right password signs in from the guessing address too.
    clock.offsetMs += wait * 1000;
    const owner = anonymous();
    assert.equal((await owner.call('POST', '/sign-in', { email, password: PASSWORD }, from('198.18.11.1'))).status, 200);
    assert.equal((await owner.call('GET', '/session')).status, 200);
  });

  test('six wrong operator tokens behind a proxy outside TRUSTED_PROXIES slow guesses but never stop the right token', async () => {
    const proxied = await startTestStack();
    try {
      // Every client looks like the proxy (loopback); X-Forwarded-For is not believed.
      const at = (n: number) => from(`203.0.113.${n}`);
      const guess = (i: number) =>
        new DashboardBrowser(proxied.baseUrl, 'svc_operator').call('POST', '/operator/sign-in', { token: `guess-${i}` }, at(i));
      for (let i = 0; i < 6; i++) {
        const wrong = await guess(i);
        assert.deepEqual([wrong.status, wrong.body.error.code], [401, 'invalid_credentials']);
      }
      // Further wrong tokens are slowed down: within a few they meet the growing interval.
      let slowed: DashboardAnswer | undefined;
      for (let i = 6; i < 12 && !slowed; i++) {
        const res = await guess(i);
        if (res.status === 429) slowed = res;
        else assert.equal(res.status, 401);
      }
      assert.ok(slowed, 'wrong tokens were slowed down');
      assertThrottled(slowed, 60, 'wrong operator token');
      const operator = new DashboardBrowser(proxied.baseUrl, 'svc_operator');
      const right = await operator.call('POST', '/operator/sign-in', { token: proxied.operatorToken }, at(8));
      assert.equal(right.status, 200, JSON.stringify(right.body));
      assert.equal((await operator.call('GET', '/operator/session')).status, 200);
    } finally {
      await proxied.close();
    }
  });
});
