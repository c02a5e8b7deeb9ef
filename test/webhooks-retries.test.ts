// The contract's retry schedule, attempt limit, resend and lease, on a clock the test moves: no
// test here sleeps through real minutes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { fromConnectError } from '../services/contract/index.js';
import {
  MovableClock, contractSignatureValid, event, eventually, newScope, startReceiver, startWebhooks,
  type Receiver, type WebhooksHarness,
} from './webhooks-support.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
// Delay before attempt n (index n - 2), from the contract's Retries table.
const SCHEDULE = [30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, 2 * 60 * MINUTE];
const QUIET_MS = 400;

describe('retries on the contract\'s schedule (movable clock)', () => {
  const clock = new MovableClock();
  let h: WebhooksHarness;
  const receivers: Receiver[] = [];

  before(async () => {
    h = await startWebhooks({ WEBHOOK_TIMEOUT_MS: '2000' }, clock);
  });
  after(async () => {
    for (const r of receivers) await r.close();
    await h?.close();
  });

  async function setup(behaviour: Parameters<typeof startReceiver>[0]) {
    const r = await startReceiver(behaviour);
    receivers.push(r);
    const scope = newScope();
    const { endpoint, secret } = await h.client.createEndpoint({ scope, url: r.url, events: ['*'] });
    return { r, scope, endpointId: endpoint!.id, secret };
  }

  const quiet = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS));

  async function deliveryOf(scope: ReturnType<typeof newScope>, status?: string) {
    return eventually(async () => {
      const { deliveries } = await h.client.listDeliveries({ scope, limit: 5 });
      return deliveries.length === 1 && (status === undefined || deliveries[0].status === status) ? deliveries[0] : undefined;
    }, 15_000, `delivery ${status ?? ''}`);
  }

  test('attempts at once, +30 s, +2 min, +10 min, +30 min, +2 h; then exhausted, the event kept', async () => {
    const { r, scope, secret } = await setup(500);
    const e = event(scope);
    await h.publish(e);
    await r.waitFor(1);
    const times = [clock.now().getTime()];
    for (let attempt = 2; attempt <= 6; attempt++) {
      await deliveryOf(scope, 'failed');
      const delay = SCHEDULE[attempt - 2];
      clock.advance(delay - SECOND);
      await quiet();
      assert.equal(r.received.length, attempt - 1, `attempt ${attempt} not before its time`);
      clock.advance(SECOND);
      await r.waitFor(attempt);
      times.push(clock.now().getTime());
    }
    assert.deepEqual(times.slice(1).map((t, i) => t - times[i]), SCHEDULE);

    const delivery = await deliveryOf(scope, 'exhausted');
    assert.equal(delivery.attemptCount, 6);
    assert.equal(delivery.nextAttemptAt, undefined);
    clock.advance(24 * 60 * MINUTE);
    await quiet();
    assert.equal(r.received.length, 6, 'nothing after the limit');

    // Every attempt: same event id, delivery id and bytes; its own number and a fresh signature.
    r.received.forEach((got, i) => {
      assert.equal(got.headers['svc-delivery-attempt'], String(i + 1));
      assert.equal(got.headers['svc-event-id'], e.id);
      assert.equal(got.headers['svc-delivery-id'], delivery.id);
      assert.equal(got.body, r.received[0].body);
      assert.ok(contractSignatureValid(got.body, got.headers['svc-signature'] as string, secret, times[i]));
      assert.equal(String(got.headers['svc-signature']).split(',')[0], `t=${Math.floor(times[i] / 1000)}`);
    });
    const shown = await h.client.getDelivery({ scope, id: delivery.id });
    assert.deepEqual(shown.attempts.map((a) => a.attemptNumber), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(shown.attempts.map((a) => timestampDate(a.startedAt!).getTime()), times);
    assert.ok(shown.attempts.every((a) => a.responseStatus === 500 && !a.manual));
    const kept = await h.sql.query('SELECT body FROM webhooks.events WHERE id = $1', [e.id]);
    assert.equal(kept.rows[0].body, r.received[0].body, 'the event is kept');

    // Manual resend of an exhausted delivery: at once, same event id and payload, attempt 7.
    r.setBehaviour(200);
    const resent = await h.client.resendDelivery({ scope, id: delivery.id });
    assert.equal(resent.delivery!.status, 'succeeded');
    assert.equal(resent.attempt!.attemptNumber, 7);
    assert.equal(resent.attempt!.manual, true);
    assert.equal(resent.attempt!.responseStatus, 200);
    assert.equal(r.received.length, 7);
    assert.equal(r.received[6].body, r.received[0].body);
    assert.equal(r.received[6].headers['svc-event-id'], e.id);
    assert.equal(r.received[6].headers['svc-delivery-attempt'], '7');
  });

  test('a 2xx after failures ends the retries: succeeded', async () => {
    let n = 0;
    const { r, scope } = await setup(() => (++n <= 2 ? 503 : 200));
    await h.publish(event(scope));
    await r.waitFor(1);
    await deliveryOf(scope, 'failed');
    clock.advance(30 * SECOND);
    await r.waitFor(2);
    await deliveryOf(scope, 'failed');
    clock.advance(2 * MINUTE);
    await r.waitFor(3);
    const delivery = await deliveryOf(scope, 'succeeded');
    assert.equal(delivery.attemptCount, 3);
    assert.equal(delivery.lastResponseStatus, 200);
    clock.advance(10 * 60 * MINUTE);
    await quiet();
    assert.equal(r.received.length, 3);
  });

  test('a disabled endpoint gets no retries until enabled; resend still reaches it at once', async () => {
    const { r, scope, endpointId } = await setup(500);
    await h.publish(event(scope));
    await r.waitFor(1);
    const failed = await deliveryOf(scope, 'failed');
    await h.client.setEndpointEnabled({ scope, id: endpointId, enabled: false });
    clock.advance(MINUTE);
    await quiet();
    assert.equal(r.received.length, 1, 'no retry to a disabled endpoint');

    r.setBehaviour(200);
    const resent = await h.client.resendDelivery({ scope, id: failed.id });
    assert.equal(resent.attempt!.attemptNumber, 2);
    assert.equal(resent.delivery!.status, 'succeeded');
    assert.equal(r.received.length, 2);
    // Resending a delivery that already succeeded replays it too.
    const again = await h.client.resendDelivery({ scope, id: failed.id });
    assert.equal(again.attempt!.attemptNumber, 3);
    assert.equal(r.received[2].body, r.received[0].body);

    await h.client.setEndpointEnabled({ scope, id: endpointId, enabled: true });
    const other = await h.client.resendDelivery({ scope: newScope(), id: failed.id }).then(() => undefined, fromConnectError);
    assert.equal(other?.code, 'resource_not_found', 'another scope never sees the delivery');
  });

  test('deliveries held back by a disabled endpoint go out when it is enabled again', async () => {
    const { r, scope, endpointId } = await setup(500);
    await h.publish(event(scope));
    await r.waitFor(1);
    await deliveryOf(scope, 'failed');
    await h.client.setEndpointEnabled({ scope, id: endpointId, enabled: false });
    r.setBehaviour(200);
    clock.advance(MINUTE);
    await quiet();
    assert.equal(r.received.length, 1);
    await h.client.setEndpointEnabled({ scope, id: endpointId, enabled: true });
    await r.waitFor(2);
    assert.equal((await deliveryOf(scope, 'succeeded')).attemptCount, 2);
  });

  test('a dispatcher that died mid-attempt leaves the delivery to be retried when its lease lapses', async () => {
    const { r, scope } = await setup(500);
    await h.publish(event(scope));
    await r.waitFor(1);
    const failed = await deliveryOf(scope, 'failed');
    // As a dispatcher does when it claims attempt 2, and then the process is killed.
    const leaseMs = 2 * 2000 + 5000;
    await h.sql.query(
      `UPDATE webhooks.deliveries SET status = 'delivering', attempt_count = 2, scheduled_attempts = 2, next_attempt_at = $2
       WHERE id = $1`,
      [failed.id, new Date(clock.now().getTime() + leaseMs)],
    );
    r.setBehaviour(200);
    clock.advance(leaseMs - SECOND);
    await quiet();
    assert.equal(r.received.length, 1, 'nobody else takes it while the lease holds');
    assert.equal((await deliveryOf(scope)).status, 'delivering');
    clock.advance(2 * SECOND);
    await r.waitFor(2);
    assert.equal(r.received[1].headers['svc-delivery-attempt'], '3');
    const done = await deliveryOf(scope, 'succeeded');
    const shown = await h.client.getDelivery({ scope, id: done.id });
    assert.deepEqual(shown.attempts.map((a) => a.attemptNumber), [1, 3], 'the lost attempt 2 left no record, the delivery was not lost');
  });

  test('a resend of a failed delivery with retries left keeps its schedule: next_attempt_at as it was, the retry still made', async () => {
    const { r, scope } = await setup(500);
    await h.publish(event(scope));
    await r.waitFor(1);
    const first = clock.now().getTime();
    const failed = await deliveryOf(scope, 'failed');
    const due = timestampDate(failed.nextAttemptAt!).getTime();
    assert.equal(due, first + 30 * SECOND);

    clock.advance(10 * SECOND);
    const resent = await h.client.resendDelivery({ scope, id: failed.id });
    assert.equal(r.received.length, 2);
    assert.equal(r.received[1].headers['svc-delivery-attempt'], '2', 'the resend is attempt 2 of the delivery');
    assert.equal(resent.attempt!.manual, true);
    assert.equal(resent.attempt!.responseStatus, 500);
    assert.equal(resent.delivery!.status, 'failed');
    assert.equal(timestampDate(resent.delivery!.nextAttemptAt!).getTime(), due, 'the retry stays where it was');
    assert.equal(resent.delivery!.attemptCount, 2);

    // The scheduled retry comes when it was due, not 30 s after the resend, and counts as the
    // schedule's second attempt: the next waits 2 min (not the 10 min of a third).
    clock.advance(due - clock.now().getTime() - SECOND);
    await quiet();
    assert.equal(r.received.length, 2, 'no retry before it is due');
    clock.advance(SECOND);
    await r.waitFor(3);
    assert.equal(r.received[2].headers['svc-delivery-attempt'], '3');
    const retried = await eventually(async () => {
      const d = await deliveryOf(scope, 'failed');
      return d.attemptCount === 3 ? d : undefined;
    }, 15_000, 'retry recorded');
    assert.equal(timestampDate(retried.nextAttemptAt!).getTime(), due + 2 * MINUTE);
    const shown = await h.client.getDelivery({ scope, id: failed.id });
    assert.deepEqual(shown.attempts.map((a) => [a.attemptNumber, a.manual, a.responseStatus]), [[1, false, 500], [2, true, 500], [3, false, 500]]);
  });

  test('resending a succeeded delivery to a receiver now failing leaves it succeeded; its attempts say what happened', async () => {
    const { r, scope } = await setup(200);
    await h.publish(event(scope));
    await r.waitFor(1);
    const delivered = await deliveryOf(scope, 'succeeded');
    r.setBehaviour(503);
    const resent = await h.client.resendDelivery({ scope, id: delivered.id });
    assert.equal(resent.delivery!.status, 'succeeded');
    assert.equal(resent.delivery!.lastResponseStatus, 200, 'the delivery still shows the answer that delivered it');
    assert.equal(resent.delivery!.nextAttemptAt, undefined, 'no retry scheduled');
    assert.equal(resent.attempt!.responseStatus, 503);
    assert.equal(resent.attempt!.manual, true);

    // A resend that gets no answer at all changes nothing either.
    r.setBehaviour('hang');
    const hung = await h.client.resendDelivery({ scope, id: delivered.id });
    assert.equal(hung.delivery!.status, 'succeeded');
    assert.match(hung.attempt!.error ?? '', /timed out/);

    clock.advance(24 * 60 * MINUTE);
    await quiet();
    assert.equal(r.received.length, 3, 'a failed resend schedules nothing');
    const shown = await h.client.getDelivery({ scope, id: delivered.id });
    assert.equal(shown.delivery!.status, 'succeeded');
    assert.deepEqual(shown.attempts.map((a) => [a.attemptNumber, a.manual, a.responseStatus ?? null]), [[1, false, 200], [2, true, 503], [3, true, null]]);
  });

  test('while a resend is under way, neither another resend nor a retry come due sends the delivery', async () => {
    const { r, scope } = await setup(500);
    await h.publish(event(scope));
    await r.waitFor(1);
    const failed = await deliveryOf(scope, 'failed');
    // Resent 5 s before its retry is due, which then comes due within the resend's lease (9 s here).
    clock.advance(25 * SECOND);
    r.setBehaviour('hang');
    const hanging = h.client.resendDelivery({ scope, id: failed.id });
    await r.waitFor(2);
    const err = await h.client.resendDelivery({ scope, id: failed.id }).then(() => undefined, fromConnectError);
    assert.equal(err?.code, 'invalid_state_transition');
    r.setBehaviour(200);
    clock.advance(6 * SECOND);
    await quiet();
    assert.equal(r.received.length, 2, 'the retry waits for the resend to end');
    assert.match((await hanging).attempt!.error ?? '', /timed out/);
    // Its lease given back, the retry due meanwhile is made.
    await r.waitFor(3);
    assert.equal(r.received[2].headers['svc-delivery-attempt'], '3');
    assert.equal((await deliveryOf(scope, 'succeeded')).attemptCount, 3);
    assert.equal(r.maxConcurrentPerDelivery(), 1);
  });

  test('resend is refused while an attempt is under way', async () => {
    const { r, scope } = await setup('hang');
    await h.publish(event(scope));
    await r.waitFor(1);
    const delivering = await deliveryOf(scope, 'delivering');
    const err = await h.client.resendDelivery({ scope, id: delivering.id }).then(() => undefined, fromConnectError);
    assert.equal(err?.code, 'invalid_state_transition');
    assert.equal((await h.client.resendDelivery({ scope, id: 'whd_none' }).then(() => undefined, fromConnectError))?.code, 'resource_not_found');
  });
});

describe('WEBHOOK_MAX_ATTEMPTS', () => {
  test('with 2 attempts the second failure exhausts the delivery', async () => {
    const clock = new MovableClock();
    const h = await startWebhooks({ WEBHOOK_MAX_ATTEMPTS: '2' }, clock);
    const r = await startReceiver(500);
    try {
      const scope = newScope();
      await h.client.createEndpoint({ scope, url: r.url, events: ['payment.successful'] });
      await h.publish(event(scope));
      await r.waitFor(1);
      await eventually(async () => ((await h.client.listDeliveries({ scope, limit: 1 })).deliveries[0]?.status === 'failed' ? true : undefined));
      clock.advance(30 * SECOND);
      await r.waitFor(2);
      const d = await eventually(async () => {
        const [x] = (await h.client.listDeliveries({ scope, limit: 1 })).deliveries;
        return x?.status === 'exhausted' ? x : undefined;
      });
      assert.equal(d.attemptCount, 2);
    } finally {
      await r.close();
      await h.close();
    }
  });
});
