import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { newId } from '../services/platform/ids.js';
import { enqueueEvent } from '../services/platform/outbox.js';
import { runSvc } from './helpers/svc-cli.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// The management API and `svc` over parked outbox events, on the in-process stack. The events are
// parked here by SQL (as the relay parks them), so the test does not depend on the bus's limits;
// test/outbox-isolation.test.ts shows the relay parking them on a real NATS.

let stack: TestStack;
let db: pg.Client;

before(async () => {
  stack = await startTestStack();
  db = new pg.Client({ connectionString: stack.db.url });
  await db.connect();
});
after(async () => {
  await db?.end();
  await stack?.close();
});

async function parkedEvent(paymentId: string, type = 'payment.successful') {
  const event = {
    id: newId('evt'), type, mode: 'test', merchant_id: 'mer_dl', project_id: 'prj_dl', created_at: new Date().toISOString(),
    data: { object: { id: paymentId, object: 'payment', description: 'secret-looking text the list must not show' } },
  };
  // One transaction: the running relay must never see it unparked.
  await db.query('BEGIN');
  await db.query('SET LOCAL search_path TO payments');
  await enqueueEvent(db, event);
  await db.query(
    `UPDATE payments.outbox SET parked_at = now(), attempts = 5, last_error = 'simulated: the bus refused it'
     WHERE event_id = $1`,
    [event.id],
  );
  await db.query('COMMIT');
  return event;
}

const svc = (args: string[]) => runSvc(args, { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken });

test('operators list parked events per part, without payloads, and page through them', async () => {
  const paymentId = newId('pay');
  const first = await parkedEvent(paymentId);
  const second = await parkedEvent(newId('pay'), 'payment.created');
  const list = await stack.manage('GET', '/dead-letters?part=payments&limit=1');
  assert.equal(list.status, 200);
  assert.equal(list.body.data.length, 1);
  const letter = list.body.data[0];
  assert.equal(letter.object, 'dead_letter');
  assert.equal(letter.part, 'payments');
  assert.equal(letter.event_id, first.id);
  assert.equal(letter.event_type, 'payment.successful');
  assert.equal(letter.aggregate_id, paymentId);
  assert.equal(letter.attempts, 5);
  assert.equal(letter.last_error, 'simulated: the bus refused it');
  assert.ok(letter.payload_bytes > 100);
  assert.ok(!JSON.stringify(list.body).includes('secret-looking'), 'the payload never leaves the part');
  assert.equal(list.body.has_more, true);
  const next = await stack.manage('GET', `/dead-letters?part=payments&limit=1&cursor=${list.body.next_cursor}`);
  assert.deepEqual(next.body.data.map((d: any) => d.event_id), [second.id]);

  const empty = await stack.manage('GET', '/dead-letters?part=payouts');
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.body.data, []);

  const bad = await stack.manage('GET', '/dead-letters?part=webhooks');
  assert.equal(bad.status, 422);
  const unauthenticated = await request(stack.baseUrl, 'GET', '/manage/v1/dead-letters?part=payments');
  assert.equal(unauthenticated.status, 401);
});

test('re-publishing a parked event publishes it, is audited, and a second try is refused', async () => {
  const event = await parkedEvent(newId('pay'));
  const res = await stack.manage('POST', `/dead-letters/${event.id}/republish?part=payments`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.status, 'published');
  assert.equal(res.body.dead_letter.event_id, event.id);
  const { rows } = await db.query('SELECT published_at, parked_at FROM payments.outbox WHERE event_id = $1', [event.id]);
  assert.ok(rows[0].published_at);
  assert.equal(rows[0].parked_at, null);
  const audit = await db.query(
    `SELECT actor, data FROM gateway.audit_log WHERE action = 'dead_letter.republished' AND target_id = $1`, [event.id]);
  assert.equal(audit.rows.length, 1);
  assert.deepEqual(audit.rows[0].data, { part: 'payments', event_type: 'payment.successful', status: 'published' });

  const again = await stack.manage('POST', `/dead-letters/${event.id}/republish?part=payments`);
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'invalid_state_transition');
  const unknown = await stack.manage('POST', '/dead-letters/evt_nothing/republish?part=ledger');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'resource_not_found');
});

test('svc dead-letter list / republish and svc outbox republish', async () => {
  const event = await parkedEvent(newId('pay'));
  const listed = await svc(['dead-letter', 'list', '--part', 'payments']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`${event.id}  payment\\.successful  pay_\\w+  \\d+ bytes  attempts 5`));
  const json = await svc(['dead-letter', 'list', '--part', 'payments', '--json']);
  assert.ok(JSON.parse(json.stdout).data.some((d: any) => d.event_id === event.id));

  const republished = await svc(['dead-letter', 'republish', event.id, '--part', 'payments']);
  assert.equal(republished.code, 0, republished.stderr);
  assert.equal(republished.stdout.trim(), `${event.id}  published`);

  const since = new Date(Date.now() - 60_000).toISOString();
  const replay = await svc(['outbox', 'republish', '--part', 'payments', '--since', since]);
  assert.equal(replay.code, 0, replay.stderr);
  assert.match(replay.stdout, /^payments: \d+ event\(s\) published since .* go out again\n$/);
  const usage = await svc(['outbox', 'republish', '--part', 'payments', '--since', 'yesterday-ish']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--since must be a time/);
  for (const out of [listed, json, republished, replay, usage]) {
    assert.ok(!`${out.stdout}${out.stderr}`.includes(stack.operatorToken), 'the operator token never printed');
  }
});
