import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import type { TestContext } from 'node:test';
import type pg from 'pg';
import { eventually } from './eventually.js';
import type { KeyedOutcome } from './keyed-client.js';
import { request } from './stack.js';

// What the chaos tests share: settled funds to pay out of, the keyed requests they send and how
// to count what each key created, and the check that every event a part wrote reached its consumers.

/** Demo providers settle every movement at the ledger's next sweep (payouts need settled funds); no rate limit. */
export const SETTLING_ENV = {
  SETTLEMENT_CUTOFF_MS: '0',
  SETTLEMENT_SWEEP_MS: '200',
  // The retries of many clients are not what these tests are about.
  RATE_LIMIT_PER_MINUTE: '1000000',
};

/**
 * A run's tag for Idempotency-Keys and references: digits only after the name. Payout free text
 * is refused when it holds an IBAN-shaped run with a valid checksum (two letters, two digits, then
 * 11 or more letters or digits), which a hex tag forms by chance: `bc218255_webhooks_po_0` did.
 */
export function chaosTag(name: string): string {
  return `chaos_${name}_${randomInt(100_000_000, 1_000_000_000)}`;
}

/** A beneficiary token (never an account number) the demo providers pay out to. */
export const PAYOUT_DESTINATION = {
  type: 'bank_account', token: 'ben_chaos_1', display: 'DE89 •••• 3000', holder_name: 'Ada Lovelace', country: 'de',
};

/**
 * Successful payments of the given amounts, then a wait until the demo providers have settled
 * them (needs SETTLING_ENV); returns the payments' ids in the order of `amounts`.
 */
export async function paySettled(baseUrl: string, apiKey: string, amounts: number[]): Promise<string[]> {
  const ids: string[] = [];
  // A few at a time: the parts' pools are small.
  for (let i = 0; i < amounts.length; i += 8) {
    const batch = await Promise.all(amounts.slice(i, i + 8).map((amount) =>
      request(baseUrl, 'POST', '/v1/payments', { key: apiKey, body: { amount, currency: 'EUR', payment_method: 'card' } })));
    for (const res of batch) {
      assert.equal(res.body?.status, 'successful', JSON.stringify(res.body));
      ids.push(res.body.id);
    }
  }
  await eventually('the payments settled by the demo providers', async () => {
    const res = await request(baseUrl, 'GET', '/v1/balances', { key: apiKey });
    const eur = res.status === 200 ? res.body.data.find((b: { currency: string }) => b.currency === 'EUR') : undefined;
    return eur && eur.awaiting_provider_settlement === 0 && eur.settled_by_providers > 0 ? true : undefined;
  }, 30_000);
  return ids;
}

export type Kind = 'payment' | 'refund' | 'payout';

/** One keyed request of a chaos test and, once its client is done, its outcome. */
export interface Keyed {
  kind: Kind;
  key: string;
  path: string;
  body: Record<string, unknown>;
  /** The payment a refund is for: one refund key per payment, so a payment's refunds are its key's. */
  paymentId?: string;
  outcome?: KeyedOutcome;
}

/** Per key of `mine` (all of one kind), the ids of what it created. Payments and payouts carry their key as reference. */
export async function createdByKey(sql: pg.Pool, kind: Kind, mine: Keyed[]): Promise<Map<string, string[]>> {
  const byKey = new Map<string, string[]>(mine.map((r) => [r.key, []]));
  if (kind === 'refund') {
    const keyOf = new Map(mine.map((r) => [r.paymentId!, r.key]));
    const { rows } = await sql.query('SELECT id, payment_id FROM payments.refunds WHERE payment_id = ANY($1) ORDER BY id', [[...keyOf.keys()]]);
    for (const row of rows) byKey.get(keyOf.get(row.payment_id)!)!.push(row.id);
  } else {
    const table = kind === 'payment' ? 'payments.payments' : 'payouts.payouts';
    const { rows } = await sql.query(`SELECT id, reference FROM ${table} WHERE reference = ANY($1) ORDER BY id`, [[...byKey.keys()]]);
    for (const row of rows) byKey.get(row.reference)!.push(row.id);
  }
  return byKey;
}

/** Every key of `mine` created exactly one resource, and its client's final answer is a 201 naming it. */
export async function assertOnceEach(t: TestContext, sql: pg.Pool, kind: Kind, mine: Keyed[]): Promise<void> {
  const byKey = await createdByKey(sql, kind, mine);
  const twice = mine.filter((r) => byKey.get(r.key)!.length > 1);
  const retried = mine.filter((r) => r.outcome!.tries > 1).length;
  t.diagnostic(`${mine.length} ${kind} keys, ${retried} retried; ${twice.length} moved money twice; `
    + `answers: ${mine.map((r) => r.outcome!.status).join(' ')}`);
  for (const r of twice.slice(0, 3)) t.diagnostic(`${r.key}: ${byKey.get(r.key)!.join(', ')}; tries ${r.outcome!.history.join(' → ')}`);

  assert.deepEqual(twice.map((r) => r.key), [], `${kind} keys that moved money more than once`);
  for (const r of mine) {
    const o = r.outcome!;
    assert.equal(o.status, 201, `${r.key} ended with ${o.status}: ${o.history.join(' → ')}`);
    assert.deepEqual(byKey.get(r.key), [o.body.id], `${r.key}: the answer names the one ${kind} stored`);
  }
}

/**
 * The events the ledger records a movement from (services/ledger/money-events.ts): the internal
 * ones, and for one version the public ones (its legacy reader).
 */
export const MONEY_EVENTS = [
  'internal.payment.decided', 'internal.refund.settled', 'internal.payout.settled',
  'payment.successful', 'payment.failed', 'refund.successful', 'refund.failed', 'payout.successful', 'payout.failed',
];

export interface OutboxGaps {
  events: number;
  unpublished: number;
  notInWebhooks: number;
  /** Money events the ledger has not consumed. */
  notInLedger: number;
  /** Internal attempt.settled events routing-risk has not recorded; internal events never go to webhooks. */
  notInRoutingRisk: number;
}

/** What of one producing part's outbox (`schema`) has not reached the bus, webhooks or the ledger. */
export async function outboxGaps(sql: pg.Pool, schema: 'payments' | 'payouts' | 'ledger'): Promise<OutboxGaps> {
  const { rows: [r] } = await sql.query(
    `SELECT count(*)::int AS events,
            count(*) FILTER (WHERE o.published_at IS NULL)::int AS unpublished,
            count(*) FILTER (WHERE e.id IS NULL AND o.type NOT LIKE 'internal.%')::int AS not_in_webhooks,
            count(*) FILTER (WHERE o.type = ANY($1) AND c.event_id IS NULL)::int AS not_in_ledger,
            count(*) FILTER (WHERE o.type = 'internal.attempt.settled' AND a.event_id IS NULL)::int AS not_in_routing_risk
     FROM ${schema}.outbox o
     LEFT JOIN webhooks.events e ON e.id = o.event_id
     LEFT JOIN ledger.consumed_events c ON c.event_id = o.event_id
     LEFT JOIN routing_risk.attempt_outcomes a ON a.event_id = o.event_id`, [MONEY_EVENTS]);
  return {
    events: r.events, unpublished: r.unpublished, notInWebhooks: r.not_in_webhooks, notInLedger: r.not_in_ledger,
    notInRoutingRisk: r.not_in_routing_risk,
  };
}

/**
 * Waits until every event of the parts' outboxes is published, stored by webhooks (public ones),
 * for money events applied by the ledger, for attempt.settled recorded by routing-risk; fails naming what is still missing. Returns the counts.
 */
export async function everyEventDelivered(
  sql: pg.Pool, schemas: Array<'payments' | 'payouts' | 'ledger'>, timeoutMs = 60_000,
): Promise<Record<string, OutboxGaps>> {
  const all = async () => Object.fromEntries(await Promise.all(schemas.map(async (s) => [s, await outboxGaps(sql, s)] as const)));
  const complete = (g: OutboxGaps) => g.unpublished === 0 && g.notInWebhooks === 0 && g.notInLedger === 0 && g.notInRoutingRisk === 0;
  try {
    return await eventually('every outbox event published, in webhooks and in the ledger', async () => {
      const gaps = await all();
      return Object.values(gaps).every(complete) ? gaps : undefined;
    }, timeoutMs);
  } catch (err) {
    throw new Error(`${(err as Error).message}: ${JSON.stringify(await all())}`);
  }
}
