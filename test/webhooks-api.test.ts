// Webhooks through the real gateway: the management API and `svc` commands for endpoints and
// delivery history, POST /v1/webhooks/test, and a real payment's events reaching an endpoint.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Dispute, Payment, Payout, Refund, Settlement } from '../services/contract/resources.js';
import { runCli } from '../cli/main.js';
import { createLogger } from '../services/platform/logger.js';
import { projectPath } from '../services/platform/paths.js';
import { EVENT_TYPES } from '../services/contract/index.js';
import { captureLogs } from './helpers/log-sink.js';
import { freePort } from './helpers/processes.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { contractSignatureValid, eventually, startReceiver, type Receiver } from './webhooks-support.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

describe('webhooks through the gateway', () => {
  let stack: TestStack;
  let receiver: Receiver;
  let merchant: Awaited<ReturnType<TestStack['newMerchantKey']>>;
  const { stream: sink, lines: logs } = captureLogs();

  before(async () => {
    stack = await startTestStack({ logger: createLogger('test', 'debug', sink) });
    receiver = await startReceiver(200);
    merchant = await stack.newMerchantKey('test');
  });
  after(async () => {
    await receiver?.close();
    await stack?.close();
  });

  const manage = (method: string, path: string, body?: unknown) => stack.manage(method, path, body);
  const endpoints = (projectId = merchant.projectId) => `/projects/${projectId}/webhook-endpoints`;
  const deliveries = (projectId = merchant.projectId) => `/projects/${projectId}/webhook-deliveries`;

  async function cli(...args: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd: process.cwd(),
      env: { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken },
    });
    logs.push(stdout, stderr);
    return { code, stdout, stderr };
  }

  test('endpoints: created with a secret shown once, listed, updated, disabled, enabled, secret rotated', async () => {
    const created = await manage('POST', endpoints(), { mode: 'test', url: receiver.url, events: ['payment.successful', 'payment.created'] });
    assert.equal(created.status, 201);
    const e = created.body;
    assert.match(e.id, /^we_/);
    assert.match(e.secret, /^whsec_[0-9A-Za-z]{32}$/);
    assert.equal(e.object, 'webhook_endpoint');
    assert.equal(e.project_id, merchant.projectId);
    assert.equal(e.mode, 'test');
    assert.equal(e.status, 'enabled');
    assert.deepEqual(e.events, ['payment.created', 'payment.successful']);

    const listed = await manage('GET', `${endpoints()}?mode=test`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((x: any) => x.id), [e.id]);
    assert.ok(!JSON.stringify(listed.body).includes(e.secret), 'never listed with its secret');
    assert.deepEqual((await manage('GET', `${endpoints()}?mode=live`)).body.data, [], 'modes are separate');
    const shown = await manage('GET', `${endpoints()}/${e.id}?mode=test`);
    assert.equal(shown.body.url, receiver.url);
    assert.equal(shown.body.secret, undefined);

    const updated = await manage('POST', `${endpoints()}/${e.id}?mode=test`, { events: ['*'], description: 'orders' });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body.events, ['*']);
    assert.equal(updated.body.description, 'orders');
    assert.equal((await manage('POST', `${endpoints()}/${e.id}/disable?mode=test`)).body.status, 'disabled');
    assert.equal((await manage('POST', `${endpoints()}/${e.id}/enable?mode=test`)).body.status, 'enabled');

    const rotated = await manage('POST', `${endpoints()}/${e.id}/rotate-secret?mode=test`);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, e.secret);

    // The next delivery is signed with the new secret only.
    const before = receiver.received.length;
    const sent = await request(stack.baseUrl, 'POST', '/v1/webhooks/test', { key: merchant.secret });
    assert.equal(sent.status, 200);
    assert.deepEqual(Object.keys(sent.body), ['event_id', 'deliveries']);
    assert.match(sent.body.event_id, /^evt_/);
    assert.equal(sent.body.deliveries, 1);
    const [got] = (await receiver.waitFor(before + 1)).slice(before);
    assert.equal(got.headers['svc-event-id'], sent.body.event_id);
    assert.ok(contractSignatureValid(got.body, got.headers['svc-signature'] as string, rotated.body.secret));
    assert.ok(!contractSignatureValid(got.body, got.headers['svc-signature'] as string, e.secret));

    // The secrets were never logged or audited.
    const { rows } = await stack.query(`SELECT action, data FROM gateway.audit_log WHERE target_id = $1 ORDER BY id`, [e.id]);
    assert.deepEqual(rows.map((r) => r.action), [
      'webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.disabled', 'webhook_endpoint.enabled',
      'webhook_endpoint.secret_rotated',
    ]);
    assert.ok(!JSON.stringify(rows).includes('whsec_'));
    await eventually(async () => (logs.join('').length > 0 ? true : undefined));
    assert.ok(!logs.join('').includes(e.secret) && !logs.join('').includes(rotated.body.secret), 'no secret in any log line');
  });

  test('endpoints are refused with 422 naming the field: unknown event types, bad URLs, private addresses in live', async () => {
    const live = await stack.newMerchantKey('live');
    const cases: Array<[string, unknown, string]> = [
      [endpoints(), { mode: 'test', url: receiver.url, events: ['payment.exploded'] }, 'events'],
      [endpoints(), { mode: 'test', url: receiver.url, events: [] }, 'events'],
      [endpoints(), { mode: 'test', url: 'http://192.168.1.20/hooks', events: ['*'] }, 'url'],
      [endpoints(), { mode: 'test', url: 'http://169.254.169.254/latest/meta-data', events: ['*'] }, 'url'],
      [endpoints(live.projectId), { mode: 'live', url: 'http://hooks.example.com/svc', events: ['*'] }, 'url'],
      [endpoints(live.projectId), { mode: 'live', url: receiver.url.replace('http:', 'https:'), events: ['*'] }, 'url'],
      [endpoints(live.projectId), { mode: 'live', url: 'https://10.1.2.3/hooks', events: ['*'] }, 'url'],
      [endpoints(), { mode: 'test', url: receiver.url, events: ['*'], colour: 'blue' }, 'colour'],
    ];
    for (const [path, body, param] of cases) {
      const res = await manage('POST', path, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.param, param, JSON.stringify(body));
    }
    const ok = await manage('POST', endpoints(live.projectId), { mode: 'live', url: 'https://hooks.example.com/svc', events: ['*'] });
    assert.equal(ok.status, 201);
    const missing = await manage('GET', `${endpoints()}/${ok.body.id}?mode=test`);
    assert.equal(missing.status, 404, 'another project\'s endpoint is not found');
    assert.equal(missing.body.error.code, 'resource_not_found');
    assert.equal((await manage('GET', `${endpoints('prj_nope')}?mode=test`)).status, 404);
  });

  test('POST /v1/webhooks/test sends a real, signed event of each type, shaped like the API resource', async () => {
    const m = await stack.newMerchantKey('test');
    const r = await startReceiver(200);
    try {
      const none = await request(stack.baseUrl, 'POST', '/v1/webhooks/test', { key: m.secret, body: {} });
      assert.deepEqual(none.body.deliveries, 0, 'no endpoints, no deliveries');
      const created = await manage('POST', endpoints(m.projectId), { mode: 'test', url: r.url, events: ['*'] });
      const ajv = addFormats(new Ajv({ strict: false }));
      const schemas: Record<string, object> = { payment: Payment, refund: Refund, payout: Payout, settlement: Settlement, dispute: Dispute };
      for (const type of EVENT_TYPES) {
        const res = await request(stack.baseUrl, 'POST', '/v1/webhooks/test', { key: m.secret, body: { event_type: type } });
        assert.equal(res.status, 200);
        assert.equal(res.body.deliveries, 1);
        const got = (await r.waitFor(EVENT_TYPES.indexOf(type) + 1)).at(-1)!;
        const body = JSON.parse(got.body);
        assert.equal(body.id, res.body.event_id);
        assert.equal(body.type, type);
        assert.equal(body.mode, 'test');
        assert.equal(got.headers['svc-event-type'], type);
        assert.ok(contractSignatureValid(got.body, got.headers['svc-signature'] as string, created.body.secret));
        const validate = ajv.compile(schemas[type.split('.')[0]]);
        assert.ok(validate(body.data.object), `${type}: ${JSON.stringify(validate.errors)}`);
      }
      const bad = await request(stack.baseUrl, 'POST', '/v1/webhooks/test', { key: m.secret, body: { event_type: 'payment.exploded' } });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.error.code, 'validation_error');
      assert.equal(bad.body.error.param, 'event_type');
      // The test event has its delivery history like any other.
      const { body: page } = await manage('GET', `${deliveries(m.projectId)}?mode=test&event_type=payment.successful`);
      assert.equal(page.data.length, 1);
      assert.equal(page.data[0].status, 'succeeded');
    } finally {
      await r.close();
    }
  });

  test('a real payment\'s events reach the endpoint with data.object as the API returns it', async () => {
    const m = await stack.newMerchantKey('test');
    const r = await startReceiver(200);
    try {
      await manage('POST', endpoints(m.projectId), { mode: 'test', url: r.url, events: ['payment.created', 'payment.successful'] });
      const paid = await request(stack.baseUrl, 'POST', '/v1/payments', { key: m.secret, body: { amount: 1500, currency: 'EUR', payment_method: 'card' } });
      assert.equal(paid.status, 201);
      await r.waitFor(2);
      const bodies = r.received.map((x) => JSON.parse(x.body));
      const successful = bodies.find((b) => b.type === 'payment.successful');
      assert.deepEqual(successful.data.object, paid.body);
      assert.equal(bodies.find((b) => b.type === 'payment.created').data.object.status, 'created');
    } finally {
      await r.close();
    }
  });

  test('delivery history: filters, pages, one delivery with its attempts, resend', async () => {
    const m = await stack.newMerchantKey('test');
    const failing = await startReceiver(500);
    const fine = await startReceiver(200);
    try {
      const a = (await manage('POST', endpoints(m.projectId), { mode: 'test', url: failing.url, events: ['*'] })).body;
      const b = (await manage('POST', endpoints(m.projectId), { mode: 'test', url: fine.url, events: ['payment.failed'] })).body;
      for (const event_type of ['payment.successful', 'payment.failed', 'payment.failed']) {
        await request(stack.baseUrl, 'POST', '/v1/webhooks/test', { key: m.secret, body: { event_type } });
      }
      await failing.waitFor(3);
      await fine.waitFor(2);
      const list = (q: string) => manage('GET', `${deliveries(m.projectId)}?mode=test${q}`);
      await eventually(async () => ((await list('&status=failed')).body.data.length === 3 ? true : undefined));
      assert.equal((await list('')).body.data.length, 5);
      assert.equal((await list(`&endpoint_id=${b.id}`)).body.data.length, 2);
      assert.equal((await list('&event_type=payment.failed')).body.data.length, 4);
      assert.equal((await list(`&endpoint_id=${a.id}&event_type=payment.failed`)).body.data.length, 2);
      assert.equal((await list('&status=succeeded')).body.data.length, 2);
      assert.equal((await list('&status=bogus')).status, 422);
      const first = (await list('&limit=2')).body;
      assert.equal(first.has_more, true);
      const second = (await list(`&limit=2&cursor=${first.next_cursor}`)).body;
      const third = (await list(`&limit=2&cursor=${second.next_cursor}`)).body;
      assert.equal(third.has_more, false);
      const ids = [...first.data, ...second.data, ...third.data].map((d: any) => d.id);
      assert.equal(new Set(ids).size, 5);
      assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first');
      assert.equal((await manage('GET', `${deliveries()}?mode=test&endpoint_id=${a.id}`)).body.data.length, 0, 'scoped to the project');

      const failed = (await list('&status=failed&limit=1')).body.data[0];
      assert.match(failed.next_attempt_at, /^\d{4}-/);
      const shown = await manage('GET', `${deliveries(m.projectId)}/${failed.id}?mode=test`);
      assert.equal(shown.status, 200);
      assert.equal(shown.body.event.id, failed.event_id);
      assert.deepEqual(Object.keys(shown.body.event), ['id', 'type', 'mode', 'created_at', 'data']);
      const [attempt] = shown.body.attempts;
      assert.equal(attempt.attempt_number, 1);
      assert.equal(attempt.response_status, 500);
      assert.equal(attempt.response_body, 'status 500');
      assert.equal(attempt.error, null);
      assert.equal(typeof attempt.duration_ms, 'number');
      assert.match(attempt.request_headers['svc-signature'], /^t=\d+,v1=[0-9a-f]{8}…$/);
      assert.equal(attempt.request_headers['svc-delivery-id'], failed.id);

      failing.setBehaviour(200);
      const resent = await manage('POST', `${deliveries(m.projectId)}/${failed.id}/resend?mode=test`);
      assert.equal(resent.status, 200);
      assert.equal(resent.body.status, 'succeeded');
      assert.equal(resent.body.attempt.attempt_number, 2);
      assert.equal(resent.body.attempt.manual, true);
      const replay = failing.received.at(-1)!;
      assert.equal(replay.headers['svc-event-id'], failed.event_id);
      assert.equal(replay.body, failing.received.find((x) => x.headers['svc-delivery-id'] === failed.id)!.body);
      assert.equal((await manage('POST', `${deliveries()}/${failed.id}/resend?mode=test`)).status, 404);
    } finally {
      await failing.close();
      await fine.close();
    }
  });

  test('the README\'s example receiver, run as its own process, verifies real deliveries and refuses a forged one', async () => {
    const m = await stack.newMerchantKey('test');
    const port = await freePort();
    const created = await manage('POST', endpoints(m.projectId), { mode: 'test', url: `http://127.0.0.1:${port}/hooks`, events: ['*'] });
    const child = spawn(process.execPath, [projectPath('examples', 'webhook-receiver.mjs')], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: created.body.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      await eventually(async () => (out.includes('listening') ? true : undefined), 10_000, 'the receiver to listen');
      const sent = await request(stack.baseUrl, 'POST', '/v1/webhooks/test', { key: m.secret, body: { event_type: 'refund.successful' } });
      assert.equal(sent.status, 200);
      await eventually(async () => (out.includes(`verified ${sent.body.event_id} refund.successful`) ? true : undefined), 15_000, out);
      const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
        method: 'POST', body: '{"id":"evt_x"}', headers: { 'svc-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      });
      assert.equal(forged.status, 400);
      const { body } = await manage('GET', `${deliveries(m.projectId)}?mode=test`);
      assert.equal(body.data[0].status, 'succeeded', 'the receiver\'s 204 counts as success');
    } finally {
      child.kill();
    }
  });

  test('svc endpoint and delivery commands', async () => {
    const m = await stack.newMerchantKey('test');
    const r = await startReceiver(200);
    try {
      const p = ['--project', m.projectId, '--mode', 'test'];
      const created = await cli('endpoint', 'create', ...p, '--url', r.url, '--events', 'payment.successful,refund.failed');
      assert.equal(created.code, 0, created.stderr);
      const secret = /signing secret: (whsec_\w+)/.exec(created.stdout)![1];
      assert.match(created.stdout, /shown once/);
      const id = /^(we_\w+)/m.exec(created.stdout)![1];
      const asJson = await cli('endpoint', 'list', ...p, '--json');
      assert.equal(JSON.parse(asJson.stdout).data[0].id, id);
      assert.ok(!asJson.stdout.includes(secret));
      assert.match((await cli('endpoint', 'update', id, ...p, '--events', '*')).stdout, /all events/);
      assert.match((await cli('endpoint', 'disable', id, ...p)).stdout, /disabled/);
      assert.match((await cli('endpoint', 'enable', id, ...p)).stdout, /enabled/);
      const rotated = await cli('endpoint', 'rotate-secret', id, ...p, '--json');
      assert.match(JSON.parse(rotated.stdout).secret, /^whsec_/);
      assert.match(rotated.stderr, /shown once/);

      const bad = await cli('endpoint', 'create', ...p, '--url', r.url, '--events', 'payment.exploded');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /validation_error/);
      assert.equal((await cli('endpoint', 'create', ...p, '--events', '*')).code, 2, 'a missing --url is a usage mistake');

      await request(stack.baseUrl, 'POST', '/v1/webhooks/test', { key: m.secret });
      await r.waitFor(1);
      const deliveryId = String(r.received[0].headers['svc-delivery-id']);
      const listed = await eventually(async () => {
        const out = await cli('delivery', 'list', ...p, '--status', 'succeeded', '--event-type', 'payment.successful');
        return out.stdout.includes(deliveryId) ? out : undefined;
      });
      assert.equal(listed.code, 0);
      const shown = await cli('delivery', 'show', deliveryId, ...p);
      assert.match(shown.stdout, /#1 .*HTTP 200/);
      const resent = await cli('delivery', 'resend', deliveryId, ...p, '--json');
      assert.equal(JSON.parse(resent.stdout).attempt.attempt_number, 2);
      assert.equal(r.received.length, 2);
      assert.equal((await cli('delivery', 'list', ...p, '--status', 'lost')).code, 2);
    } finally {
      await r.close();
    }
  });
});
