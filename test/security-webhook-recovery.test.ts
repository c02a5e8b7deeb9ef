// Webhook recovery ("resend everything that failed since T"), on real Postgres,
// NATS and a loopback receiver counting every request: recovery is one at a time per endpoint across
// replicas (a call while one runs answers that one's progress), never resends a delivery twice within
// its cool-down, goes through the per-host pacer like any attempt, and sends nothing for a disabled
// endpoint (409). Single manual resends are paced too.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { fromConnectError } from '../services/contract/index.js';
import {
  event, eventually, newScope, startReceiver, startWebhooks, type Receiver, type WebhooksHarness,
} from './webhooks-support.js';

const harnesses: WebhooksHarness[] = [];
const receivers: Receiver[] = [];
after(async () => {
  for (const r of receivers) await r.close();
  for (const h of harnesses) await h.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A harness whose deliveries are exhausted after one failed attempt, with `count` of them on one endpoint. */
async function exhausted(count: number, env: Record<string, string> = {}, maxPerSecond?: number) {
  const h = await startWebhooks({ WEBHOOK_MAX_ATTEMPTS: '1', ...env });
  harnesses.push(h);
  const r = await startReceiver(500);
  receivers.push(r);
  const scope = newScope();
  const { endpoint } = await h.client.createEndpoint({ scope, url: r.url, events: ['*'], maxPerSecond });
  const since = new Date(Date.now() - 1000);
  for (let i = 0; i < count; i++) await h.publish(event(scope));
  await r.waitFor(count, 30_000);
  await eventually(async () => {
    const { deliveries } = await h.client.listDeliveries({ scope, status: 'exhausted', limit: 100 });
    return deliveries.length === count ? true : undefined;
  }, 15_000, 'every delivery exhausted');
  return { h, r, scope, endpointId: endpoint!.id, since: timestampFromDate(since), baseline: r.received.length };
}

/** Requests per delivery id among those received after `from`. */
function perDelivery(r: Receiver, from: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const got of r.received.slice(from)) {
    const id = String(got.headers['svc-delivery-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

test('ten recover calls 100 ms apart, on two replicas, send each failed delivery at most once', async () => {
  const DELIVERIES = 20;
  const { h, r, scope, endpointId, since, baseline } = await exhausted(DELIVERIES);
  r.setBehaviour({ status: 500, delayMs: 30 });
  const other = await h.clientOf(await h.addReplica());
  const clients = [h.client, other];
  for (let i = 0; i < 10; i++) {
    const res = await clients[i % 2].recoverEndpoint({ scope, endpointId, since });
    assert.ok(res.deliveries <= DELIVERIES, `call ${i} answers ${res.deliveries}`);
    await sleep(100);
  }
  await sleep(2_000);
  const counts = perDelivery(r, baseline);
  const total = r.received.length - baseline;
  assert.ok(total <= DELIVERIES, `${total} requests for ${DELIVERIES} failed deliveries`);
  assert.ok([...counts.values()].every((n) => n === 1), `per delivery: ${JSON.stringify([...counts.values()])}`);
  assert.equal(counts.size, DELIVERIES, 'every failed delivery was resent once');
});

test('a recover call while a recovery runs answers that recovery\'s progress and starts nothing', async () => {
  // Two a second: ten deliveries take about five seconds.
  const { h, r, scope, endpointId, since, baseline } = await exhausted(10, {}, 2);
  const first = await h.client.recoverEndpoint({ scope, endpointId, since });
  assert.equal(first.deliveries, 10);
  assert.equal(first.running, true);
  assert.equal(first.joined, false);
  await sleep(1_600);
  const other = await h.clientOf(await h.addReplica());
  const later = timestampFromDate(new Date());
  const second = await other.recoverEndpoint({ scope, endpointId, since: later });
  assert.equal(second.joined, true, 'the second call joins the first');
  assert.equal(second.running, true);
  assert.equal(second.deliveries, 10, 'the first\'s count');
  assert.deepEqual(second.since, first.since, 'the first\'s since, not the second\'s');
  assert.deepEqual(second.startedAt, first.startedAt);
  assert.ok(second.resent >= 1 && second.resent < 10, `resent so far: ${second.resent}`);
  await r.waitFor(baseline + 10, 15_000);
  // Once it is over a call starts another, which finds nothing: each delivery was just recovered.
  const next = await eventually(async () => {
    const res = await h.client.recoverEndpoint({ scope, endpointId, since });
    return res.joined ? undefined : res;
  }, 10_000, 'the recovery finished');
  assert.equal(next.deliveries, 0);
  assert.equal(next.running, false);
  await sleep(500);
  assert.equal(r.received.length - baseline, 10, 'one request per delivery, whatever the calls');
});

test('a disabled endpoint: recover is refused 409 and nothing is sent to it', async () => {
  const { h, r, scope, endpointId, since, baseline } = await exhausted(20);
  r.setBehaviour(200);
  await h.client.setEndpointEnabled({ scope, id: endpointId, enabled: false });
  const refused = await h.client.recoverEndpoint({ scope, endpointId, since }).then(() => undefined, (err: unknown) => err);
  assert.ok(refused, 'recover of a disabled endpoint is refused');
  const e = fromConnectError(refused);
  assert.equal(e.status, 409);
  assert.equal(e.code, 'invalid_state_transition');
  assert.equal(e.type, 'state_error');
  assert.match(e.message, /disabled/);
  await sleep(1_500);
  assert.equal(r.received.length - baseline, 0, 'no request reached the disabled endpoint');
  // A single resend is still allowed, as the contract says.
  const { deliveries } = await h.client.listDeliveries({ scope, status: 'exhausted', limit: 1 });
  const resent = await h.client.resendDelivery({ scope, id: deliveries[0].id });
  assert.equal(resent.delivery!.status, 'succeeded');
  assert.equal(r.received.length - baseline, 1);
});

test('an endpoint disabled during its recovery gets nothing more', async () => {
  const { h, r, scope, endpointId, since, baseline } = await exhausted(10, {}, 2);
  await h.client.recoverEndpoint({ scope, endpointId, since });
  await r.waitFor(baseline + 1, 5_000);
  await h.client.setEndpointEnabled({ scope, id: endpointId, enabled: false });
  const at = r.received.length;
  await sleep(2_500);
  assert.ok(r.received.length - at <= 1, `${r.received.length - at} requests after the disable (one may have been under way)`);
});

test('recovery and single resends go through the per-host pacer', async () => {
  const RATE = 5;
  const { h, r, scope, endpointId, since, baseline } = await exhausted(12, { WEBHOOK_HOST_RATE_PER_SECOND: String(RATE) });
  r.setBehaviour(200);
  await h.client.recoverEndpoint({ scope, endpointId, since });
  await r.waitFor(baseline + 12, 15_000);
  const at = r.received.slice(baseline).map((x) => x.at);
  // Evenly spaced slots: any RATE + 1 requests in a row span about a second (less timer and scheduling
  // slack on a loaded machine; unpaced, they would arrive within milliseconds).
  for (let i = RATE; i < at.length; i++) {
    assert.ok(at[i] - at[i - RATE] >= 800, `requests ${i - RATE}..${i} within ${Math.round(at[i] - at[i - RATE])} ms`);
  }
  // Single resends of one host, asked at once, are spaced by the same pacer.
  const { deliveries } = await h.client.listDeliveries({ scope, limit: 3 });
  const before = r.received.length;
  const started = performance.now();
  await Promise.all(deliveries.map((d) => h.client.resendDelivery({ scope, id: d.id })));
  const single = r.received.slice(before).map((x) => x.at).sort((a, b) => a - b);
  assert.equal(single.length, 3);
  assert.ok(single[2] - single[0] >= 2 * (1000 / RATE) - 50, `three resends within ${Math.round(single[2] - single[0])} ms`);
  assert.ok(performance.now() - started < 5_000);
});
