// A burst of keyed payments whose events must each reach the ledger and a merchant's webhook
// endpoint exactly once whatever happens to NATS meanwhile: what the broker chaos tests share
// (chaos-nats-empty, chaos-nats-cluster).
import assert from 'node:assert/strict';
import type pg from 'pg';
import { eventually } from './eventually.js';
import { keyedRequest, type KeyedOutcome } from './keyed-client.js';
import type { SplitStack } from './split-stack.js';
import { request } from './stack.js';

/** The events the merchant's endpoint subscribes to: two per successful payment. */
export const BURST_EVENTS = ['payment.created', 'payment.successful'];

/** A merchant with a test key and a webhook endpoint at `receiverUrl` for BURST_EVENTS; answers the key. */
export async function burstMerchant(split: SplitStack, receiverUrl: string): Promise<string> {
  const manage = (path: string, body: unknown) => request(split.baseUrl, 'POST', `/manage/v1${path}`, { key: split.operatorToken, body });
  const projectId = (await manage('/merchants', { name: 'Broker chaos merchant' })).body.project.id;
  const apiKey = (await manage(`/projects/${projectId}/keys`, { mode: 'test', name: 'k' })).body.secret;
  const endpoint = await manage(`/projects/${projectId}/webhook-endpoints`, { mode: 'test', url: receiverUrl, events: BURST_EVENTS });
  assert.equal(endpoint.status, 201);
  return apiKey;
}

/**
 * `clients` clients create one payment per key (its reference), each retrying its key until final,
 * each pausing `pauseMs` between its payments (a burst that lasts while a test breaks things).
 */
export async function paymentBurst(
  split: SplitStack, apiKey: string, keys: string[], clients: number, pauseMs = 0,
): Promise<Map<string, KeyedOutcome>> {
  const outcomes = new Map<string, KeyedOutcome>();
  let next = 0;
  const client = async () => {
    while (next < keys.length) {
      const i = next++;
      outcomes.set(keys[i], await keyedRequest({
        baseUrl: () => split.baseUrl, method: 'POST', path: '/v1/payments', apiKey, idempotencyKey: keys[i],
        body: { amount: 1_000 + i, currency: 'EUR', payment_method: 'card', reference: keys[i] }, totalMs: 90_000,
      }));
      if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return outcomes;
}

/** The burst's payments stored so far. */
export async function storedPayments(sql: pg.Pool, prefix: string): Promise<number> {
  return (await sql.query('SELECT count(*)::int AS n FROM payments.payments WHERE reference LIKE $1', [`${prefix}%`])).rows[0].n;
}

/**
 * Each of the `count` payments has one successful ledger movement, and each of its BURST_EVENTS
 * one webhook delivery, succeeded (waiting up to a minute for the deliveries), and the receiver
 * got every event.
 */
export async function assertEachPaymentOnce(sql: pg.Pool, prefix: string, count: number, received: () => Set<string>): Promise<void> {
  const { rows: movements } = await sql.query(
    `SELECT p.id, count(t.id)::int AS n, count(t.id) FILTER (WHERE t.status = 'successful')::int AS ok
     FROM payments.payments p LEFT JOIN ledger.transactions t ON t.entity_type = 'payment' AND t.type = 'payment' AND t.entity_id = p.id
     WHERE p.reference LIKE $1 GROUP BY p.id`, [`${prefix}%`]);
  assert.equal(movements.length, count);
  for (const m of movements) assert.deepEqual([m.n, m.ok], [1, 1], `${m.id}: ledger movements`);
  const deliveries = await eventually('every delivery succeeded', async () => {
    const { rows } = await sql.query(
      `SELECT p.id, e.id AS event_id, e.type, count(d.id)::int AS n, count(d.id) FILTER (WHERE d.status = 'succeeded')::int AS ok
       FROM payments.payments p
       JOIN webhooks.events e ON e.payment_id = p.id AND e.type = ANY($2)
       LEFT JOIN webhooks.deliveries d ON d.event_id = e.id
       WHERE p.reference LIKE $1 GROUP BY p.id, e.id, e.type`, [`${prefix}%`, BURST_EVENTS]);
    return rows.length === count * BURST_EVENTS.length && rows.every((r) => r.ok === 1) ? rows : undefined;
  }, 60_000);
  for (const d of deliveries) assert.equal(d.n, 1, `${d.id} ${d.type}: deliveries`);
  // Read once every delivery has succeeded: each succeeded only after the receiver answered it.
  const got = received();
  const missing = deliveries.filter((d) => !got.has(d.event_id));
  assert.deepEqual(missing.map((d) => d.event_id), [], 'events the receiver never got');
}
