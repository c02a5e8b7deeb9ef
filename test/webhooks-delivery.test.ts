// Delivery through real HTTP receivers on loopback: what is sent, what counts as success, and
// what history keeps (the contract's Delivery, Signature, Retries and History sections).
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { fromConnectError } from '../services/contract/index.js';
import { storeEvent } from '../services/webhooks/fan-out.js';
import { verifyWebhookSignature } from '../services/webhooks/verify.js';
import {
  contractSignatureValid, event, eventually, newScope, startReceiver, startWebhooks, type Receiver, type WebhooksHarness,
} from './webhooks-support.js';

const TIMEOUT_MS = 2000;
const CONTRACT_HEADERS = ['content-type', 'user-agent', 'svc-signature', 'svc-event-id', 'svc-event-type', 'svc-delivery-id', 'svc-delivery-attempt'];
// What HTTP itself adds; nothing else may be sent.
const TRANSPORT_HEADERS = ['host', 'connection', 'content-length'];

describe('webhook delivery to real receivers', () => {
  let h: WebhooksHarness;
  const receivers: Receiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };

  before(async () => {
    h = await startWebhooks({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_CONCURRENCY: '8', WEBHOOK_ENDPOINT_CONCURRENCY: '2' });
  });
  after(async () => {
    for (const r of receivers) await r.close();
    await h?.close();
  });

  async function endpoint(url: string, events = ['*'], scope = newScope()) {
    const res = await h.client.createEndpoint({ scope, url, events });
    return { scope, id: res.endpoint!.id, secret: res.secret };
  }

  async function onlyDelivery(scope: ReturnType<typeof newScope>, settled = true) {
    return eventually(async () => {
      const { deliveries } = await h.client.listDeliveries({ scope, limit: 10 });
      if (deliveries.length !== 1) return undefined;
      if (settled && ['pending', 'delivering'].includes(deliveries[0].status)) return undefined;
      return (await h.client.getDelivery({ scope, id: deliveries[0].id }));
    }, 15_000, 'the delivery to settle');
  }

  test('a 2xx receiver gets exactly the contract\'s body and headers, signed; the delivery succeeds', async () => {
    const ok = await receiver({ status: 204 });
    const { scope, secret } = await endpoint(ok.url);
    const e = event(scope, 'payment.successful', { amount: 1000, currency: 'EUR' });
    await h.publish(e);
    const [got] = await ok.waitFor(1);

    assert.equal(got.body, JSON.stringify({ id: e.id, type: e.type, mode: 'test', created_at: e.created_at, data: { object: e.data.object } }));
    const parsed = JSON.parse(got.body);
    assert.deepEqual(Object.keys(parsed), ['id', 'type', 'mode', 'created_at', 'data']);
    assert.deepEqual(Object.keys(parsed.data), ['object']);

    const names = got.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    assert.deepEqual(names.filter((n) => !TRANSPORT_HEADERS.includes(n)).sort(), [...CONTRACT_HEADERS].sort());
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], 'svc-webhooks/1.0');
    assert.equal(got.headers['svc-event-id'], e.id);
    assert.equal(got.headers['svc-event-type'], 'payment.successful');
    assert.match(String(got.headers['svc-delivery-id']), /^whd_[0-9a-z]{26}$/);
    assert.equal(got.headers['svc-delivery-attempt'], '1');
    assert.match(String(got.headers['svc-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.ok(contractSignatureValid(got.body, got.headers['svc-signature'] as string, secret), 'a receiver built from the contract verifies it');
    assert.ok(verifyWebhookSignature(got.body, got.headers['svc-signature'], secret));
    assert.ok(!contractSignatureValid(got.body, got.headers['svc-signature'] as string, `${secret}x`));

    const shown = await onlyDelivery(scope);
    assert.equal(shown.delivery!.status, 'succeeded');
    assert.equal(shown.delivery!.id, got.headers['svc-delivery-id']);
    assert.equal(shown.delivery!.attemptCount, 1);
    assert.equal(shown.delivery!.nextAttemptAt, undefined);
    assert.equal(shown.eventBody, got.body);
    const [attempt] = shown.attempts;
    assert.equal(attempt.attemptNumber, 1);
    assert.equal(attempt.responseStatus, 204);
    assert.equal(attempt.error, undefined);
    assert.ok(attempt.durationMs >= 0 && attempt.durationMs < TIMEOUT_MS);
    const sent = Object.fromEntries(attempt.requestHeaders.map((x) => [x.name, x.value]));
    for (const name of CONTRACT_HEADERS.filter((n) => n !== 'svc-signature')) assert.equal(sent[name], got.headers[name], name);
    const signature = String(got.headers['svc-signature']);
    assert.match(sent['svc-signature'], /^t=\d+,v1=[0-9a-f]{8}…$/, 'history keeps the signature truncated');
    assert.ok(signature.startsWith(sent['svc-signature'].slice(0, -1)));
  });

  test('a non-2xx answer fails the attempt; history keeps the status and the first 2 KB of the body', async () => {
    const failing = await receiver({ status: 500, body: 'é'.repeat(1500) + 'x'.repeat(3000) });
    const { scope } = await endpoint(failing.url);
    await h.publish(event(scope));
    await failing.waitFor(1);
    const shown = await onlyDelivery(scope);
    assert.equal(shown.delivery!.status, 'failed');
    assert.equal(shown.delivery!.lastResponseStatus, 500);
    const [attempt] = shown.attempts;
    assert.equal(attempt.responseStatus, 500);
    assert.equal(attempt.error, undefined);
    assert.ok(Buffer.byteLength(attempt.responseBody!) <= 2048 + 3, 'at most 2 KB (a split character may be replaced)');
    assert.ok(attempt.responseBody!.startsWith('é'.repeat(1000)));
    // Attempt 2 comes 30 s after attempt 1 began.
    const next = timestampDate(shown.delivery!.nextAttemptAt!).getTime();
    assert.equal(next - timestampDate(attempt.startedAt!).getTime(), 30_000);
  });

  test('a receiver that never answers: the attempt ends at WEBHOOK_TIMEOUT_MS as a failure with an error', async () => {
    const hanging = await receiver('hang');
    const { scope } = await endpoint(hanging.url);
    await h.publish(event(scope));
    await hanging.waitFor(1);
    const during = await h.client.listDeliveries({ scope, limit: 1 });
    assert.equal(during.deliveries[0].status, 'delivering', 'claimed while the attempt is under way');
    const shown = await onlyDelivery(scope);
    assert.equal(shown.delivery!.status, 'failed');
    const [attempt] = shown.attempts;
    assert.equal(attempt.responseStatus, undefined);
    assert.match(attempt.error!, new RegExp(`timed out after ${TIMEOUT_MS} ms`));
    assert.ok(attempt.durationMs >= TIMEOUT_MS - 50 && attempt.durationMs < TIMEOUT_MS + 3000, `${attempt.durationMs} ms`);
  });

  test('a refused connection is a failure with the connection error', async () => {
    const server = createServer();
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    await new Promise((resolve) => server.close(resolve));
    const { scope } = await endpoint(`http://127.0.0.1:${port}/gone`);
    await h.publish(event(scope));
    const shown = await onlyDelivery(scope);
    assert.equal(shown.delivery!.status, 'failed');
    assert.equal(shown.attempts[0].responseStatus, undefined);
    assert.match(shown.attempts[0].error!, /ECONNREFUSED/);
    assert.match(shown.delivery!.lastError!, /ECONNREFUSED/);
  });

  test('redirects are not followed: a 3xx fails the attempt and its target gets nothing', async () => {
    const target = await receiver(200);
    const redirecting = await receiver({ status: 307, headers: { location: target.url } });
    const { scope } = await endpoint(redirecting.url);
    await h.publish(event(scope));
    const shown = await onlyDelivery(scope);
    assert.equal(shown.delivery!.status, 'failed');
    assert.equal(shown.attempts[0].responseStatus, 307);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(target.received.length, 0);
  });

  test('an event is stored once and delivered once per enabled, subscribed endpoint of its own merchant, project and mode', async () => {
    const scope = newScope();
    const all = await receiver(200);
    const failedOnly = await receiver(200);
    const disabled = await receiver(200);
    const otherProject = await receiver(200);
    await endpoint(all.url, ['*'], scope);
    await endpoint(failedOnly.url, ['payment.failed'], scope);
    const off = await endpoint(disabled.url, ['*'], scope);
    await h.client.setEndpointEnabled({ scope, id: off.id, enabled: false });
    await endpoint(otherProject.url, ['*'], { ...scope, projectId: newScope().projectId });
    const e = event(scope, 'payment.successful');
    // At-least-once upstream: the same event arrives again; its id is the key.
    await h.publish(e);
    await h.publish(e);
    await h.publish({ ...e, data: { object: { ...e.data.object } } });
    // The same merchant and project in the other mode is another world.
    await h.publish(event({ ...scope, mode: 'live' }, 'payment.successful'));
    await all.waitFor(1);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(all.received.length, 1);
    assert.equal(JSON.parse(all.received[0].body).id, e.id);
    for (const r of [failedOnly, disabled, otherProject]) assert.equal(r.received.length, 0);
    // The bus drops a re-publish within its window; a redelivery past it meets the event's key.
    assert.equal(await storeEvent(h.pool, e, new Date()), 0);
    const { rows } = await h.sql.query('SELECT count(*)::int AS n FROM webhooks.events WHERE id = $1', [e.id]);
    assert.equal(rows[0].n, 1);
    const deliveries = await h.sql.query('SELECT count(*)::int AS n FROM webhooks.deliveries WHERE event_id = $1', [e.id]);
    assert.equal(deliveries.rows[0].n, 1);
  });

  test('unknown event types and bad URLs are refused when an endpoint is saved', async () => {
    const scope = newScope();
    const cases: Array<[Parameters<typeof h.client.createEndpoint>[0], string]> = [
      [{ scope, url: 'http://127.0.0.1:9/x', events: ['payment.exploded'] }, 'events'],
      [{ scope, url: 'http://127.0.0.1:9/x', events: [] }, 'events'],
      [{ scope, url: 'http://127.0.0.1:9/x', events: ['*', 'payment.created'] }, 'events'],
      [{ scope, url: 'http://10.0.0.8/x', events: ['*'] }, 'url'],
      [{ scope, url: 'http://169.254.169.254/latest', events: ['*'] }, 'url'],
      [{ scope: { ...scope, mode: 'live' }, url: 'http://hooks.example.com/x', events: ['*'] }, 'url'],
      [{ scope: { ...scope, mode: 'live' }, url: 'https://127.0.0.1/x', events: ['*'] }, 'url'],
    ];
    for (const [req, param] of cases) {
      const err = await h.client.createEndpoint(req).then(() => undefined, (e) => fromConnectError(e));
      assert.equal(err?.code, 'validation_error', JSON.stringify(req.events) + req.url);
      assert.equal(err?.options.param, param);
    }
    const listed = await h.client.listEndpoints({ scope });
    assert.equal(listed.endpoints.length, 0);
  });

  test('one slow endpoint does not hold up the others (per-endpoint cap, no head-of-line blocking)', async () => {
    const scope = newScope();
    const slow = await receiver('hang');
    const fast = await receiver(200);
    await endpoint(slow.url, ['*'], scope);
    await endpoint(fast.url, ['*'], scope);
    const started = Date.now();
    for (let i = 0; i < 20; i++) await h.publish(event(scope));
    await fast.waitFor(20, 15_000);
    const took = Date.now() - started;
    // Queued behind the slow one, 20 deliveries at 2 per time-out would take 20 s.
    assert.ok(took < 8000, `fast endpoint served in ${took} ms`);
    assert.ok(slow.received.length <= 2, 'the slow endpoint holds at most its cap of attempts');
    const { deliveries } = await h.client.listDeliveries({ scope, limit: 100, status: 'pending' });
    assert.ok(deliveries.length >= 10, 'the slow endpoint\'s deliveries wait as pending');
  });
});
