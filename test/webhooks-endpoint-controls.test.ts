// The webhooks part's endpoint controls on real Postgres, NATS and HTTP receivers: a maximum
// delivery rate two replicas honour together, a receiver's 429 Retry-After slowing its endpoint
// without burning attempts, "resend everything that failed since T", and retention.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, test } from 'node:test';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  MovableClock, event, eventually, newScope, startReceiver, startWebhooks, type Receiver, type WebhooksHarness,
} from './webhooks-support.js';

const harnesses: WebhooksHarness[] = [];
const receivers: Receiver[] = [];
after(async () => {
  for (const r of receivers) await r.close();
  for (const h of harnesses) await h.close();
});

async function harness(env: Record<string, string> = {}, clock?: MovableClock) {
  const h = await startWebhooks({ WEBHOOK_POLL_MS: '50', ...env }, clock);
  harnesses.push(h);
  return h;
}
async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}
/** When a request arrived, on the wall clock (ms). */
const wallMs = (at: number) => performance.timeOrigin + at;

test('a throttled endpoint gets no more than its rate in any second from two dispatchers together', async () => {
  const h = await harness();
  await h.addReplica();
  const r = await receiver(200);
  const scope = newScope();
  const RATE = 3;
  const EVENTS = 15;
  const { endpoint } = await h.client.createEndpoint({ scope, url: r.url, events: ['*'], maxPerSecond: RATE });
  assert.equal(endpoint!.maxPerSecond, RATE);
  for (let i = 0; i < EVENTS; i++) await h.publish(event(scope));
  await r.waitFor(EVENTS, 30_000);
  const perSecond = new Map<number, number>();
  for (const got of r.received) {
    const second = Math.floor(wallMs(got.at) / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  assert.ok([...perSecond.values()].every((n) => n <= RATE), `per second: ${JSON.stringify([...perSecond])}`);
  assert.ok(perSecond.size >= EVENTS / RATE, `spread over ${perSecond.size} seconds`);
  // The limit is the endpoint's: lifted, the same backlog goes at once.
  await h.client.updateEndpoint({ scope, id: endpoint!.id, maxPerSecond: 0 });
  assert.equal((await h.client.getEndpoint({ scope, id: endpoint!.id })).endpoint!.maxPerSecond, undefined);
  const started = performance.now();
  for (let i = 0; i < EVENTS; i++) await h.publish(event(scope));
  await r.waitFor(2 * EVENTS, 15_000);
  assert.ok(performance.now() - started < EVENTS / RATE * 1000, 'unthrottled, the second batch is not held to the rate');
});

test('a 429 with Retry-After pauses the endpoint until then and does not use up an attempt', async () => {
  // One attempt only: a failure would exhaust the delivery at once.
  const h = await harness({ WEBHOOK_MAX_ATTEMPTS: '1' });
  let first = true;
  const r = await receiver(() => {
    if (!first) return 200;
    first = false;
    return { status: 429, headers: { 'retry-after': '2' } };
  });
  const scope = newScope();
  const { endpoint } = await h.client.createEndpoint({ scope, url: r.url, events: ['*'] });
  const a = event(scope);
  await h.publish(a);
  await r.waitFor(1);
  await eventually(async () => ((await h.client.getEndpoint({ scope, id: endpoint!.id })).endpoint!.retryAfterUntil ? true : undefined),
    5_000, 'the endpoint shows until when it is paused');
  await h.publish(event(scope));
  await r.waitFor(3, 15_000);
  const gap = r.received[1].at - r.received[0].at;
  assert.ok(gap >= 1_900, `no request during the pause (next after ${Math.round(gap)} ms)`);
  // The receiver sees a request before the dispatcher records its answer.
  const deliveries = await eventually(async () => {
    const listed = (await h.client.listDeliveries({ scope, endpointId: endpoint!.id })).deliveries;
    return listed.every((d) => d.status === 'succeeded') ? listed : undefined;
  }, 5_000, 'both deliveries succeed');
  assert.equal(deliveries.length, 2);
  const slowed = deliveries.find((d) => d.eventId === a.id)!;
  assert.equal(slowed.attemptCount, 2, 'the 429 is kept in history, and the delivery was tried again');
  const health = (await h.client.getEndpoint({ scope, id: endpoint!.id })).endpoint!;
  assert.equal(health.failingSince, undefined, 'a 429 is not a failure of the endpoint');
});

test('enabling a disabled endpoint sends what is pending at once, even a retry the disable did not park', async () => {
  const h = await harness();
  const r = await receiver(503);
  const scope = newScope();
  const { endpoint } = await h.client.createEndpoint({ scope, url: r.url, events: ['*'] });
  const e = event(scope);
  await h.publish(e);
  await r.waitFor(1);
  await eventually(async () => ((await h.client.listDeliveries({ scope, status: 'failed' })).deliveries.length === 1 ? true : undefined));
  await h.client.setEndpointEnabled({ scope, id: endpoint!.id, enabled: false });
  // An attempt in flight while the sweep disabled the endpoint can be given its next retry, hours
  // away, instead of being parked: as it would be left then.
  await h.sql.query(`UPDATE webhooks.deliveries SET next_attempt_at = now() + interval '10 hours' WHERE event_id = $1`, [e.id]);
  r.setBehaviour(200);
  await h.client.setEndpointEnabled({ scope, id: endpoint!.id, enabled: true });
  await r.waitFor(2, 5_000);
  assert.equal(JSON.parse(r.received[1].body).id, e.id);
});

test('recover: every delivery failed since T is resent with its event id; older ones are left', async () => {
  const h = await harness({ WEBHOOK_MAX_ATTEMPTS: '1' });
  const r = await receiver(500);
  const scope = newScope();
  const { endpoint } = await h.client.createEndpoint({ scope, url: r.url, events: ['*'] });
  const older = [event(scope), event(scope)];
  for (const e of older) await h.publish(e);
  await r.waitFor(2);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const since = new Date();
  const recent = [event(scope), event(scope), event(scope)];
  for (const e of recent) await h.publish(e);
  await r.waitFor(5);
  await eventually(async () => {
    const { deliveries } = await h.client.listDeliveries({ scope, status: 'exhausted' });
    return deliveries.length === 5 ? true : undefined;
  });
  r.setBehaviour(200);
  const res = await h.client.recoverEndpoint({ scope, endpointId: endpoint!.id, since: timestampFromDate(since) });
  assert.equal(res.deliveries, 3);
  await r.waitFor(8);
  const resent = r.received.slice(5);
  assert.deepEqual(resent.map((x) => JSON.parse(x.body).id).sort(), recent.map((e) => e.id).sort());
  assert.ok(resent.every((x) => x.headers['svc-delivery-attempt'] === '2'), 'each is the delivery\'s next attempt');
  await eventually(async () => {
    const { deliveries } = await h.client.listDeliveries({ scope });
    const byEvent = new Map(deliveries.map((d) => [d.eventId, d.status]));
    return recent.every((e) => byEvent.get(e.id) === 'succeeded') && older.every((e) => byEvent.get(e.id) === 'exhausted')
      ? true : undefined;
  });
  const { attempts } = await h.client.getDelivery({
    scope, id: (await h.client.listDeliveries({ scope, status: 'succeeded' })).deliveries[0].id,
  });
  assert.deepEqual(attempts.map((a) => a.manual), [false, true], 'the recovery attempt is a resend');
  await assert.rejects(h.client.recoverEndpoint({ scope: newScope(), endpointId: endpoint!.id, since: timestampFromDate(since) }),
    /No webhook endpoint/, 'another scope cannot recover it');
});

test('retention: events past WEBHOOK_RETENTION_DAYS go with their deliveries and attempts; 29-day-old ones and unfinished ones stay', async () => {
  const clock = new MovableClock();
  const h = await harness({ WEBHOOK_RETENTION_DAYS: '30', WEBHOOK_SWEEP_MS: '100' }, clock);
  const r = await receiver(200);
  const scope = newScope();
  await h.client.createEndpoint({ scope, url: r.url, events: ['payment.successful'] });
  const day = 86_400_000;
  const at = (daysAgo: number) => new Date(clock.now().getTime() - daysAgo * day).toISOString();
  const old = { ...event(scope), created_at: at(31) };
  const recent = { ...event(scope), created_at: at(29) };
  await h.publish(old);
  await h.publish(recent);
  await r.waitFor(2);
  // One more, 40 days old, whose delivery is unfinished: its receiver fails, and the retry (30 s on
  // the clock, which stands still) is not due yet.
  const failing = await receiver(500);
  await h.client.createEndpoint({ scope, url: failing.url, events: ['payment.failed'] });
  const waiting = { ...event(scope, 'payment.failed'), created_at: at(40) };
  await h.publish(waiting);
  await failing.waitFor(1);
  const ids = async () => (await h.client.listEvents({ scope, limit: 200 })).events.map((e) => e.id).sort();
  const count = async (table: string) =>
    Number((await h.sql.query(`SELECT count(*) FROM webhooks.${table}`)).rows[0].count);
  await eventually(async () => ((await ids()).includes(old.id) ? undefined : true), 10_000, 'the 31-day-old event swept');
  assert.deepEqual(await ids(), [recent.id, waiting.id].sort(), 'the 29-day-old event and the unfinished one stay');
  await eventually(async () => ((await count('delivery_attempts')) === 2 ? true : undefined), 10_000,
    'the old event\'s attempt gone with it, the others\' kept');
  assert.equal(await count('deliveries'), 2);
  const listed = await h.client.listEvents({ scope, from: timestampFromDate(new Date(at(30))) });
  assert.deepEqual(listed.events.map((e) => e.id), [recent.id]);
});
