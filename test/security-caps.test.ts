// Caps and fan-out: 150 webhook endpoints and 150 API keys per project were
// accepted, one POST /v1/webhooks/test then sent 151 requests, and event streams had no cap per
// gateway. Now each documented cap (services/contract/project-caps.ts, EVENT_STREAMS_PER_GATEWAY) is
// refused with its error envelope on every creation path, concurrent creations never pass it, a
// test event fans out to at most the endpoint cap, and attempts to one host are paced
// (WEBHOOK_HOST_RATE_PER_SECOND) instead of sent in one burst.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_ACTIVE_API_KEYS, MAX_ENABLED_WEBHOOK_ENDPOINTS } from '../services/contract/project-caps.js';
import { expectError } from './helpers/api-assertions.js';
import { DashboardBrowser, registerByMail } from './helpers/dashboard-browser.js';
import { openStream } from './helpers/event-stream-clients.js';
import { eventually } from './helpers/eventually.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { serveLoopback } from './helpers/stand-in-server.js';
import { runSvc } from './helpers/svc-cli.js';

const HOST_RATE = 5;
const STREAMS_PER_GATEWAY = 3;

/** A webhook receiver on loopback: when each request arrived, and its attempt header. */
async function startReceiver() {
  const received: Array<{ at: number; attempt: string; endpointPath: string }> = [];
  const server = await serveLoopback((req, res) => {
    received.push({ at: performance.now(), attempt: String(req.headers['svc-delivery-attempt']), endpointPath: req.url ?? '' });
    res.writeHead(200).end();
  });
  return { received, baseUrl: server.baseUrl, close: server.close };
}

describe('per-project caps', () => {
  let stack: TestStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    stack = await startTestStack({
      env: { WEBHOOK_HOST_RATE_PER_SECOND: String(HOST_RATE), EVENT_STREAMS_PER_GATEWAY: String(STREAMS_PER_GATEWAY) },
    });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await stack?.close();
  });

  const createEndpoint = (projectId: string, n: number) => stack.manage('POST', `/projects/${projectId}/webhook-endpoints`, {
    mode: 'test', url: `${receiver.baseUrl}/hooks/${n}`, events: ['payment.refunded'],
  });
  const enabledEndpoints = async (projectId: string) => (await stack.query(
    'SELECT count(*)::int AS n FROM webhooks.endpoints WHERE project_id = $1 AND enabled', [projectId])).rows[0].n as number;
  const activeKeys = async (projectId: string) => (await stack.query(
    'SELECT count(*)::int AS n FROM gateway.api_keys WHERE project_id = $1 AND revoked_at IS NULL', [projectId])).rows[0].n as number;

  function expectLimit(res: { status: number; body: any; headers?: Headers }, what: RegExp) {
    expectError(res, 409, 'invalid_request_error', 'limit_reached');
    if (res.headers) assert.equal(res.body.request_id, res.headers.get('x-request-id'));
    assert.match(res.body.error.message, what);
  }

  test(`the endpoint past ${MAX_ENABLED_WEBHOOK_ENDPOINTS} enabled ones is refused 409 limit_reached, and so is enabling one past it`, async () => {
    const { projectId } = await stack.newMerchantKey('test');
    for (let i = 0; i < MAX_ENABLED_WEBHOOK_ENDPOINTS; i++) assert.equal((await createEndpoint(projectId, i)).status, 201);
    const refused = await createEndpoint(projectId, 99);
    expectLimit(refused, new RegExp(`already has ${MAX_ENABLED_WEBHOOK_ENDPOINTS} enabled test webhook endpoints`));
    assert.equal(await enabledEndpoints(projectId), MAX_ENABLED_WEBHOOK_ENDPOINTS, 'nothing was stored');

    const list = await stack.manage('GET', `/projects/${projectId}/webhook-endpoints?mode=test`);
    const first = list.body.data[0].id;
    assert.equal((await stack.manage('POST', `/projects/${projectId}/webhook-endpoints/${first}/disable?mode=test`)).status, 200);
    assert.equal((await createEndpoint(projectId, 100)).status, 201, 'a disabled endpoint frees its place');
    const enable = await stack.manage('POST', `/projects/${projectId}/webhook-endpoints/${first}/enable?mode=test`);
    expectLimit(enable, /enabled test webhook endpoints/);
    assert.equal(await enabledEndpoints(projectId), MAX_ENABLED_WEBHOOK_ENDPOINTS);
  });

  test('concurrent endpoint creations never pass the cap', async () => {
    const { projectId } = await stack.newMerchantKey('test');
    const results = await Promise.all(Array.from({ length: MAX_ENABLED_WEBHOOK_ENDPOINTS + 5 }, (_, i) => createEndpoint(projectId, i)));
    assert.equal(results.filter((r) => r.status === 201).length, MAX_ENABLED_WEBHOOK_ENDPOINTS);
    assert.ok(results.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.error.code === 'limit_reached'));
    assert.equal(await enabledEndpoints(projectId), MAX_ENABLED_WEBHOOK_ENDPOINTS);
  });

  test('POST /v1/webhooks/test reaches at most the cap of endpoints, even with more from before it, paced per host and none failed', async () => {
    const { projectId, merchantId, secret } = await stack.newMerchantKey('test');
    for (let i = 0; i < MAX_ENABLED_WEBHOOK_ENDPOINTS; i++) assert.equal((await createEndpoint(projectId, i)).status, 201);
    // Five more made before the cap existed: they keep working for real events, not for fan-out of a test.
    for (let i = 0; i < 5; i++) {
      await stack.query(
        `INSERT INTO webhooks.endpoints (id, merchant_id, project_id, mode, url, events, enabled, secret, created_at, updated_at)
         VALUES ($1, $2, $3, 'test', $4, '{payment.refunded}', true, 'plain:whsec_old', now(), now())`,
        [`we_precap_${projectId}_${i}`, merchantId, projectId, `${receiver.baseUrl}/hooks/old-${i}`]);
    }
    receiver.received.length = 0;
    const sent = await request(stack.baseUrl, 'POST', '/v1/webhooks/test', { key: secret, body: { event_type: 'payment.refunded' } });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.deliveries, MAX_ENABLED_WEBHOOK_ENDPOINTS);

    await eventually('every delivery to succeed', async () => {
      const { rows } = await stack.query(
        `SELECT count(*)::int AS n FROM webhooks.deliveries WHERE event_id = $1 AND status = 'succeeded'`, [sent.body.event_id]);
      return rows[0].n === MAX_ENABLED_WEBHOOK_ENDPOINTS ? true : undefined;
    }, 30_000);
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(receiver.received.length, MAX_ENABLED_WEBHOOK_ENDPOINTS, 'no more requests than the cap');
    assert.ok(receiver.received.every((r) => r.attempt === '1'), 'waiting for a slot is not a failed attempt');
    // At most HOST_RATE attempts a second to the one host: any HOST_RATE + 1 in a row span a second
    // (less a little for the network between the sender's start and the receiver's clock).
    const at = receiver.received.map((r) => r.at).sort((a, b) => a - b);
    for (let i = 0; i + HOST_RATE < at.length; i++) {
      assert.ok(at[i + HOST_RATE] - at[i] >= 900, `attempts ${i}..${i + HOST_RATE} within ${Math.round(at[i + HOST_RATE] - at[i])} ms`);
    }
  });

  test(`the API key past ${MAX_ACTIVE_API_KEYS} active ones of a mode is refused 409 by the management API and svc; revoking one frees its place`, async () => {
    const { projectId } = await stack.newMerchantKey('test');
    const create = () => stack.manage('POST', `/projects/${projectId}/keys`, { mode: 'test', name: 'another' });
    for (let i = 1; i < MAX_ACTIVE_API_KEYS; i++) assert.equal((await create()).status, 201);
    const refused = await create();
    expectLimit(refused, new RegExp(`already has ${MAX_ACTIVE_API_KEYS} active test API keys`));
    assert.equal(refused.body.error.details?.limit, MAX_ACTIVE_API_KEYS);
    assert.equal(refused.body.secret, undefined);
    assert.equal(await activeKeys(projectId), MAX_ACTIVE_API_KEYS);

    const cli = await runSvc(['key', 'create', '--project', projectId, '--mode', 'test', '--name', 'cli'],
      { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken });
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /limit_reached/);
    assert.equal(await activeKeys(projectId), MAX_ACTIVE_API_KEYS);

    const keys = await stack.manage('GET', `/projects/${projectId}/keys`);
    assert.equal((await stack.manage('POST', `/keys/${keys.body.data[0].id}/revoke`)).status, 200);
    assert.equal((await create()).status, 201);
  });

  test('concurrent key creations never pass the cap', async () => {
    const { projectId } = await stack.newMerchantKey('test');
    const results = await Promise.all(Array.from({ length: MAX_ACTIVE_API_KEYS + 10 }, () =>
      stack.manage('POST', `/projects/${projectId}/keys`, { mode: 'test', name: 'racing' })));
    // The merchant's first key holds one place.
    assert.equal(results.filter((r) => r.status === 201).length, MAX_ACTIVE_API_KEYS - 1);
    assert.ok(results.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.error.code === 'limit_reached'));
    assert.equal(await activeKeys(projectId), MAX_ACTIVE_API_KEYS);
  });

  test('the dashboard refuses the key and the endpoint past their caps alike', async () => {
    const browser = new DashboardBrowser(stack.baseUrl);
    const email = `caps-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@example.com`;
    const registered = await registerByMail(browser, stack.mailbox, { email, password: 'correct horse battery', merchant_name: 'Caps shop' });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));

    let created = (await browser.call('GET', '/keys')).body.data.filter((k: any) => k.revoked_at === null).length;
    while (created < MAX_ACTIVE_API_KEYS) {
      assert.equal((await browser.call('POST', '/keys', { name: `key ${created}` })).status, 201);
      created++;
    }
    expectLimit(await browser.call('POST', '/keys', { name: 'one too many' }), /active test API keys/);

    for (let i = 0; i < MAX_ENABLED_WEBHOOK_ENDPOINTS; i++) {
      const res = await browser.call('POST', '/webhook-endpoints', { url: `${receiver.baseUrl}/dash/${i}`, events: ['*'] });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    expectLimit(await browser.call('POST', '/webhook-endpoints', { url: `${receiver.baseUrl}/dash/x`, events: ['*'] }),
      /enabled test webhook endpoints/);
  });

  test(`a gateway holds at most EVENT_STREAMS_PER_GATEWAY streams of all projects: the next is refused 429 with Retry-After`, async () => {
    const streams = [];
    for (let i = 0; i < STREAMS_PER_GATEWAY; i++) {
      const s = await openStream(stack.baseUrl, (await stack.newMerchantKey('test')).secret);
      assert.equal(s.status, 200);
      streams.push(s);
    }
    const key = (await stack.newMerchantKey('test')).secret;
    const refused = await openStream(stack.baseUrl, key);
    await new Promise((resolve) => refused.response.on('end', resolve));
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '5');
    const body = JSON.parse(refused.text());
    assert.equal(body.error.type, 'rate_limit_error');
    assert.equal(body.error.code, 'rate_limited');
    assert.equal(body.request_id, refused.headers['x-request-id']);
    assert.match(body.error.message, new RegExp(`gateway already holds ${STREAMS_PER_GATEWAY} event streams`));
    streams.shift()!.close();
    await eventually('the closed stream to free its place', async () => {
      const s = await openStream(stack.baseUrl, key);
      if (s.status !== 200) return undefined;
      streams.push(s);
      return true;
    });
    for (const s of streams) s.close();
  });
});
