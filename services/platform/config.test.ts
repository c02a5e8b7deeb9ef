import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig, MissingVariablesError, requireForPart, warnRenamedVariables } from './config.js';

test('defaults apply when nothing is set', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.grpcPort, 50051);
  assert.equal(c.natsStream, 'SVC_EVENTS');
  assert.equal(c.natsSubjectPrefix, 'svc.events');
  assert.equal(c.databaseUrl, undefined);
  assert.deepEqual(c.peers, {});
  assert.equal(c.inProcessCalls, 'direct');
  assert.equal(loadConfig({ IN_PROCESS_CALLS: 'router' }).inProcessCalls, 'router');
});

test('peer addresses come from <SERVICE>_URL', () => {
  const c = loadConfig({ ROUTING_RISK_URL: 'http://rr:50051', PAYMENTS_URL: 'http://p:50051' });
  assert.equal(c.peers['routing-risk'], 'http://rr:50051');
  assert.equal(c.peers.payments, 'http://p:50051');
});

test('each bad value is refused with a message that names its variable', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ GRPC_PORT: '-1' }, 'GRPC_PORT'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ NATS_URL: 'http://x' }, 'NATS_URL'],
    [{ NATS_URL: 'nats://a:4222,http://b:4222' }, 'NATS_URL'],
    [{ NATS_URL: 'nats://a:4222,,nats://b:4222' }, 'NATS_URL'],
    [{ NATS_STREAM_REPLICAS: '0' }, 'NATS_STREAM_REPLICAS'],
    [{ NATS_STREAM_REPLICAS: '7' }, 'NATS_STREAM_REPLICAS'],
    [{ NATS_STREAM_CLUSTER: 'a b' }, 'NATS_STREAM_CLUSTER'],
    [{ NATS_STREAM: 'a.b' }, 'NATS_STREAM'],
    [{ NATS_SUBJECT_PREFIX: 'a.>' }, 'NATS_SUBJECT_PREFIX'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ PAYMENTS_URL: 'ftp://x' }, 'PAYMENTS_URL'],
    [{ OPERATOR_TOKEN: 'short' }, 'OPERATOR_TOKEN'],
    [{ OUTBOX_POLL_MS: '1' }, 'OUTBOX_POLL_MS'],
    [{ TRUSTED_PROXIES: '10.0.0.1,not-an-ip' }, 'TRUSTED_PROXIES'],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, 'TRUSTED_PROXIES'],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ IDEMPOTENCY_TTL_HOURS: 'day' }, 'IDEMPOTENCY_TTL_HOURS'],
    [{ IN_PROCESS_CALLS: 'grpc' }, 'IN_PROCESS_CALLS'],
  ];
  for (const [env, variable] of cases) {
    assert.throws(() => loadConfig(env), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.variable, variable);
      assert.match(err.message, new RegExp(variable));
      return true;
    });
  }
});

test('a part run on its own requires the database, NATS and its peers', () => {
  const base = { DATABASE_URL: 'postgres://h/db', NATS_URL: 'nats://h:4222', INTERNAL_TOKEN: 'i'.repeat(32) };
  assert.throws(() => requireForPart(loadConfig({ NATS_URL: base.NATS_URL }), 'ledger', []), /DATABASE_URL/);
  assert.throws(() => requireForPart(loadConfig({ DATABASE_URL: base.DATABASE_URL }), 'ledger', []), /NATS_URL/);
  assert.throws(() => requireForPart(loadConfig(base), 'payments', ['routing-risk']), /ROUTING_RISK_URL/);
  requireForPart(loadConfig({ ...base, ROUTING_RISK_URL: 'http://rr:1' }), 'payments', ['routing-risk']);
});

test('every missing variable is named in one error, not the first alone', () => {
  const missing = (env: Record<string, string>, part: 'gateway' | 'payouts', peers: Parameters<typeof requireForPart>[2],
    nats = true) => {
    try {
      requireForPart(loadConfig(env), part, peers, { nats });
    } catch (err) {
      assert.ok(err instanceof MissingVariablesError);
      return { variables: err.variables, message: err.message };
    }
    return assert.fail('expected a refusal');
  };
  const gateway = missing({ PAYMENTS_URL: 'http://p:1', ROUTING_RISK_URL: 'http://rr:1' }, 'gateway',
    ['payments', 'routing-risk', 'webhooks', 'ledger', 'payouts'], false);
  assert.deepEqual(gateway.variables, ['DATABASE_URL', 'WEBHOOKS_URL', 'LEDGER_URL', 'PAYOUTS_URL', 'INTERNAL_TOKEN'],
    'NATS is not needed');
  assert.match(gateway.message,
    /^configuration: DATABASE_URL, WEBHOOKS_URL, LEDGER_URL, PAYOUTS_URL, INTERNAL_TOKEN are required to run gateway on its own/);
  const payouts = missing({ DATABASE_URL: 'postgres://h/db', INTERNAL_TOKEN: 'i'.repeat(32) }, 'payouts', ['routing-risk', 'ledger']);
  assert.deepEqual(payouts.variables, ['NATS_URL', 'ROUTING_RISK_URL', 'LEDGER_URL']);
});

test('INTERNAL_CALLERS names each caller with its token hash and projects; a bad entry is named', () => {
  const hash = 'ab'.repeat(32);
  const c = loadConfig({ INTERNAL_CALLERS: JSON.stringify({
    reporting: { token_sha256: hash, projects: ['prj_1', 'prj_2'] }, backoffice: { token_sha256: hash, projects: '*' },
  }) });
  assert.deepEqual(c.internalCallers.map((k) => [k.name, k.tokenSha256.toString('hex'), k.projects]),
    [['reporting', hash, ['prj_1', 'prj_2']], ['backoffice', hash, '*']]);
  assert.deepEqual(loadConfig({}).internalCallers, []);
  const refused = (value: string, pattern: RegExp) =>
    assert.throws(() => loadConfig({ INTERNAL_CALLERS: value }), (e: unknown) => e instanceof ConfigError && pattern.test(e.message));
  refused('{nope', /INTERNAL_CALLERS must be a JSON object/);
  refused(JSON.stringify({ r: { token_sha256: 'abc', projects: '*' } }), /r\.token_sha256/);
  refused(JSON.stringify({ r: { token_sha256: hash, projects: [] } }), /r\.projects/);
  refused(JSON.stringify({ r: { token_sha256: hash, projects: ['mer_1'] } }), /r\.projects/);
  assert.throws(() => loadConfig({ INTERNAL_TOKEN: 'short' }), /INTERNAL_TOKEN must be at least 32 characters/);
});

test('trusted proxies take addresses and CIDR ranges of both families', () => {
  const c = loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.7 ,::1,fd00::/8' });
  assert.deepEqual(c.trustedProxies, ['10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8']);
  assert.deepEqual(loadConfig({}).trustedProxies, []);
});

test('the dashboard\'s per-address throttles default to 10 and 30 a minute; a bad value is named', () => {
  const c = loadConfig({});
  assert.deepEqual([c.authThrottlePerMinute, c.signInThrottlePerMinute], [10, 30]);
  assert.throws(() => loadConfig({ AUTH_THROTTLE_PER_MINUTE: '0' }), /AUTH_THROTTLE_PER_MINUTE/);
  assert.throws(() => loadConfig({ SIGN_IN_THROTTLE_PER_MINUTE: 'many' }), /SIGN_IN_THROTTLE_PER_MINUTE/);
});

// Mailed links and team: the dashboard's SMTP settings.
test('SMTP_HOST turns dashboard mail on; its partners need it, MAIL_FROM is required, and no error quotes the password', () => {
  assert.equal(loadConfig({}).smtp, undefined);
  assert.equal(loadConfig({}).dashboardSweepMs, 600_000);
  assert.deepEqual(loadConfig({ SMTP_HOST: 'smtp.example.com', MAIL_FROM: 'Payments <no-reply@example.com>' }).smtp, {
    host: 'smtp.example.com', port: 587, secure: false, user: undefined, password: undefined, from: 'Payments <no-reply@example.com>',
  });
  const withAccount = loadConfig({ SMTP_HOST: 'smtp.example.com', SMTP_PORT: '465', SMTP_USER: 'svc', SMTP_PASSWORD: ' p@ss word ', MAIL_FROM: 'a@example.com' });
  assert.deepEqual([withAccount.smtp?.secure, withAccount.smtp?.password], [true, ' p@ss word ']);
  const password = 'hunter2-not-in-errors';
  const cases: Array<[Record<string, string>, string]> = [
    [{ SMTP_PASSWORD: password }, 'SMTP_PASSWORD'],
    [{ MAIL_FROM: 'a@example.com' }, 'MAIL_FROM'],
    [{ SMTP_HOST: 'smtp.example.com' }, 'MAIL_FROM'],
    [{ SMTP_HOST: 'smtp.example.com', MAIL_FROM: 'not an address' }, 'MAIL_FROM'],
    [{ SMTP_HOST: 'smtp example', MAIL_FROM: 'a@example.com' }, 'SMTP_HOST'],
    [{ SMTP_HOST: 'smtp.example.com', MAIL_FROM: 'a@example.com', SMTP_PORT: '0' }, 'SMTP_PORT'],
    // The one missing of the pair is named.
    [{ SMTP_HOST: 'smtp.example.com', MAIL_FROM: 'a@example.com', SMTP_USER: 'svc' }, 'SMTP_PASSWORD'],
    [{ SMTP_HOST: 'smtp.example.com', MAIL_FROM: 'a@example.com', SMTP_PASSWORD: password }, 'SMTP_USER'],
    [{ SMTP_HOST: 'smtp.example.com', MAIL_FROM: 'a@example.com', SMTP_SECURE: 'maybe' }, 'SMTP_SECURE'],
    [{ DASHBOARD_SWEEP_MS: '1' }, 'DASHBOARD_SWEEP_MS'],
  ];
  for (const [env, variable] of cases) {
    assert.throws(() => loadConfig(env), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.variable, variable, JSON.stringify(env));
      assert.ok(!err.message.includes(password));
      return true;
    });
  }
});

test('the webhooks part on its own needs WEBHOOK_SECRET_KEY, named with every other missing variable; the event stream settings have bounds', () => {
  const base = { DATABASE_URL: 'postgres://h/db', NATS_URL: 'nats://h:4222', INTERNAL_TOKEN: 'i'.repeat(32) };
  const needs = { nats: true, webhookSecretKey: true };
  assert.throws(() => requireForPart(loadConfig(base), 'webhooks', [], needs),
    (err: unknown) => err instanceof MissingVariablesError && err.variables.join() === 'WEBHOOK_SECRET_KEY' &&
      /encrypts endpoint signing secrets at rest/.test(err.message));
  assert.throws(() => requireForPart(loadConfig({}), 'webhooks', [], needs),
    (err: unknown) => err instanceof MissingVariablesError && err.variables.join() === 'DATABASE_URL,NATS_URL,INTERNAL_TOKEN,WEBHOOK_SECRET_KEY');
  requireForPart(loadConfig({ ...base, WEBHOOK_SECRET_KEY: 'ab'.repeat(32) }), 'webhooks', [], needs);
  requireForPart(loadConfig(base), 'ledger', []);

  const config = loadConfig({});
  assert.equal(config.eventStreamMaxLifetimeSeconds, 1800);
  assert.equal(config.eventStreamsPerGateway, 1000);
  assert.equal(config.eventStreamRecheckMs, 2000);
  assert.equal(config.webhookHostRatePerSecond, 200);
  for (const [name, value] of [['EVENT_STREAM_MAX_LIFETIME_SECONDS', '0'], ['EVENT_STREAMS_PER_GATEWAY', 'many'],
    ['EVENT_STREAM_RECHECK_MS', '60000'], ['WEBHOOK_HOST_RATE_PER_SECOND', '0']]) {
    assert.throws(() => loadConfig({ [name]: value }), (err: unknown) => err instanceof ConfigError && err.variable === name);
  }
});

test('a test-mode payout holds 5 s by default, an explicit PAYOUT_HOLD_MS for both modes, PAYOUT_TEST_HOLD_MS its own', () => {
  const defaults = loadConfig({});
  assert.equal(defaults.payoutHoldMs, 60_000, 'live keeps its minute');
  assert.equal(defaults.payoutTestHoldMs, 5_000);
  const both = loadConfig({ PAYOUT_HOLD_MS: '600000' });
  assert.equal(both.payoutTestHoldMs, 600_000, 'a deployment that set one hold meant it for both modes');
  const own = loadConfig({ PAYOUT_HOLD_MS: '600000', PAYOUT_TEST_HOLD_MS: '0' });
  assert.deepEqual([own.payoutHoldMs, own.payoutTestHoldMs], [600_000, 0]);
  assert.throws(() => loadConfig({ PAYOUT_TEST_HOLD_MS: 'soon' }), (e: unknown) => e instanceof ConfigError && /PAYOUT_TEST_HOLD_MS/.test(e.message));
});

test('NATS_URL takes a comma-separated seed list; replicas and placement of the stream come with it', () => {
  const c = loadConfig({
    NATS_URL: 'nats://a:4222, nats://b:4222,tls://c:4222',
    NATS_STREAM_REPLICAS: '3', NATS_STREAM_CLUSTER: 'east', NATS_STREAM_TAGS: 'ssd, fast',
  });
  assert.equal(c.natsUrl, 'nats://a:4222,nats://b:4222,tls://c:4222');
  assert.equal(c.natsStreamReplicas, 3);
  assert.deepEqual(c.natsStreamPlacement, { cluster: 'east', tags: ['ssd', 'fast'] });
  const one = loadConfig({ NATS_URL: 'nats://a:4222' });
  assert.equal(one.natsStreamReplicas, 1);
  assert.equal(one.natsStreamPlacement, undefined);
  assert.throws(() => loadConfig({ NATS_URL: 'nats://a:4222,http://b' }), /NATS_URL entry 2 of 2 must use nats: or tls:/);
});

test('SETTLEMENT_SYNC_INTERVAL_MS sets every provider\'s settlement sync; its old name is still read, with one warning', () => {
  assert.equal(loadConfig({}).settlementSyncIntervalMs, 86_400_000);
  assert.equal(loadConfig({ SETTLEMENT_SYNC_INTERVAL_MS: '600000' }).settlementSyncIntervalMs, 600_000);
  const old = loadConfig({ STRIPE_SETTLEMENT_SYNC_INTERVAL_MS: '300000' });
  assert.equal(old.settlementSyncIntervalMs, 300_000);
  // The new name wins where both are set.
  assert.equal(loadConfig({ SETTLEMENT_SYNC_INTERVAL_MS: '600000', STRIPE_SETTLEMENT_SYNC_INTERVAL_MS: '300000' }).settlementSyncIntervalMs, 600_000);
  assert.throws(() => loadConfig({ STRIPE_SETTLEMENT_SYNC_INTERVAL_MS: 'soon' }), /STRIPE_SETTLEMENT_SYNC_INTERVAL_MS/);

  const warnings: string[] = [];
  const logger = { warn: (msg: string) => warnings.push(msg) };
  warnRenamedVariables(loadConfig({}), logger);
  assert.deepEqual(warnings, []);
  warnRenamedVariables(old, logger);
  warnRenamedVariables(old, logger);
  assert.equal(warnings.length, 1, 'once per process');
  assert.match(warnings[0], /STRIPE_SETTLEMENT_SYNC_INTERVAL_MS is the old name of SETTLEMENT_SYNC_INTERVAL_MS/);
});
