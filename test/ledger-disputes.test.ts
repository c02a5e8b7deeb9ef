// A dispute's money in the ledger (docs/ledger.md, "Disputes"): each internal.dispute.funds_moved
// becomes one transaction per movement id, on real Postgres, whatever the order and the number of
// deliveries; through real NATS JetStream, a movement that arrives before its payment waits
// (unclaimed, redelivered by the bus) and is booked once its payment is.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Subscription } from '../services/platform/bus/index.js';
import { newId } from '../services/platform/ids.js';
import { createTestBus, type TestBus } from './helpers/bus.js';
import { fundsMoved, paymentDecided, publishAll, type MovedFunds, type Scope } from './helpers/dispute-movements.js';
import { eventually } from './helpers/eventually.js';
import { ledgerConsumer, startLedgerDatabase, type LedgerDatabase } from './helpers/ledger-database.js';
import { jetStreamForFile } from './helpers/nats-server.js';

const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();

describe('the ledger books a dispute\'s money once per movement', { skip: withoutNats }, () => {
  let ledger: LedgerDatabase;
  let bus: TestBus;
  let subscription: Subscription | undefined;

  before(async () => {
    ledger = await startLedgerDatabase();
    bus = await createTestBus(natsUrl);
  });
  after(async () => {
    await subscription?.stop();
    await bus?.close();
    await ledger?.close();
  });

  const scopeOf = (): Scope => ({ mode: 'test', merchantId: newId('mer'), projectId: newId('prj') });

  /** The scope's journal totals by account. */
  async function accounts(scope: Scope): Promise<Record<string, number>> {
    const { rows } = await ledger.pool.query(
      `SELECT account, sum(amount)::int AS total FROM journal_lines WHERE merchant_id = $1 AND project_id = $2 GROUP BY account`,
      [scope.merchantId, scope.projectId],
    );
    return Object.fromEntries(rows.map((r) => [r.account, r.total]));
  }

  const disputeRows = async (scope: Scope) => (await ledger.pool.query(
    `SELECT type, status, entity_type, entity_id, payment_id, movement_id, amount::int, fee_amount::int, net_amount::int,
       provider_reference, provider_account_id, payment_method, country
     FROM transactions WHERE merchant_id = $1 AND project_id = $2 AND entity_type = 'dispute' ORDER BY id`,
    [scope.merchantId, scope.projectId],
  )).rows;

  test('withdrawn with its fee, reinstated, withdrawn again: three transactions moving by -(A+F), +A, -A', async () => {
    const handle = ledgerConsumer(ledger.pool);
    const scope = scopeOf();
    const paymentId = newId('pay');
    await handle(paymentDecided(scope, paymentId, 5000));
    const dispute = { disputeId: `dp_${randomBytes(8).toString('hex')}`, paymentId, providerDisputeId: 'du_standin_1' };
    const steps = [
      fundsMoved(scope, { ...dispute, kind: 'withdrawal', amount: 2500, fee: 1500 }),
      fundsMoved(scope, { ...dispute, kind: 'reinstatement', amount: 2500 }),
      fundsMoved(scope, { ...dispute, kind: 'withdrawal', amount: 2500 }),
    ];
    // What the merchant is owed (net) and the gross disputed, after each step.
    const owed: number[] = [];
    const disputed: number[] = [];
    const fees: number[] = [];
    const look = async () => {
      const a = await accounts(scope);
      owed.push(a.provider_receivable ?? 0);
      disputed.push(a.disputes ?? 0);
      fees.push(a.provider_fees ?? 0);
    };
    await look();
    for (const e of steps) {
      await handle(e);
      await look();
    }
    const deltas = (xs: number[]) => xs.slice(1).map((x, i) => x - xs[i]);
    assert.deepEqual(deltas(owed), [-4000, 2500, -2500], 'awaiting settlement (and the net) moves by -(A+F), +A, -A');
    assert.deepEqual(deltas(disputed), [2500, -2500, 2500], 'the gross disputed');
    assert.deepEqual(deltas(fees), [1500, 0, 0], 'the dispute fee once, kept when reinstated');

    const rows = await disputeRows(scope);
    const byMovement = new Map(rows.map((r) => [r.movement_id, [r.type, r.status, r.amount, r.fee_amount, r.net_amount]]));
    assert.deepEqual(steps.map((e) => byMovement.get(e.data.object.id)), [
      ['dispute', 'successful', -2500, 1500, -4000],
      ['dispute_reversal', 'successful', 2500, 0, 2500],
      ['dispute', 'successful', -2500, 0, -2500],
    ]);
    assert.equal(rows.length, 3);
    for (const r of rows) {
      // Named by the dispute; provider, method and country are the payment's transaction's.
      assert.deepEqual(
        [r.entity_id, r.payment_id, r.provider_reference, r.provider_account_id, r.payment_method, r.country],
        [dispute.disputeId, paymentId, 'du_standin_1', 'pac_demo_beta', 'card', 'NL'],
      );
    }
    // Every entry balances (the deferred trigger would have refused the commit otherwise).
    const total = Object.values(await accounts(scope)).reduce((t, x) => t + x, 0);
    assert.equal(total, 0);
  });

  test('over JetStream: out of order, before its payment, and redelivered, each movement is booked once', async () => {
    const handle = ledgerConsumer(ledger.pool);
    const nats = bus.nats!;
    const handed: string[] = [];
    subscription = await bus.bus.consume('ledger-disputes', [`${nats.subjectPrefix}.internal.>`], async (event) => {
      handed.push(event.id);
      await handle(event);
    }, { concurrency: 32 });
    const scope = scopeOf();
    const paymentId = newId('pay');
    const dispute = { disputeId: `dp_${randomBytes(8).toString('hex')}`, paymentId, providerDisputeId: 'du_standin_2' };
    const first: MovedFunds = { ...dispute, id: 'dpm_first', kind: 'withdrawal', amount: 3000, fee: 1500 };
    const won: MovedFunds = { ...dispute, id: 'dpm_won', kind: 'reinstatement', amount: 3000 };
    const secondChargeback: MovedFunds = { ...dispute, id: 'dpm_second', kind: 'withdrawal', amount: 3000 };
    const [withdrawal, reinstatement, second] = [first, won, secondChargeback].map((m) => fundsMoved(scope, m));
    // The reinstatement before the withdrawal, all before the payment, each movement published again
    // under another event id (a producer that wrote it twice).
    await publishAll(bus.bus, nats.subjectPrefix, [
      reinstatement, fundsMoved(scope, won), withdrawal, second, fundsMoved(scope, secondChargeback), fundsMoved(scope, first),
    ]);
    await eventually('the movements handed to the ledger and sent back to wait for their payment', async () =>
      (handed.length >= 12 ? true : undefined), 20_000);
    assert.deepEqual(await disputeRows(scope), [], 'nothing is booked before its payment');
    const claimed = await ledger.pool.query(`SELECT count(*)::int AS n FROM consumed_events WHERE type = 'internal.dispute.funds_moved' AND event_id = ANY($1)`,
      [[withdrawal.id, reinstatement.id, second.id]]);
    assert.equal(claimed.rows[0].n, 0, 'a waiting movement is not claimed, so its redelivery books it');

    await publishAll(bus.bus, nats.subjectPrefix, [paymentDecided(scope, paymentId, 6000), fundsMoved(scope, secondChargeback)]);
    const rows = await eventually('each movement booked', async () => {
      const rs = await disputeRows(scope);
      return rs.length >= 3 && handed.filter((id) => id === second.id).length > 0 ? rs : undefined;
    }, 20_000);
    // Redeliveries of one event (the handler again) record nothing more either.
    await handle(withdrawal);
    await handle(reinstatement);
    const settledRows = await disputeRows(scope);
    assert.equal(settledRows.length, 3);
    assert.deepEqual(
      settledRows.map((r) => [r.movement_id, r.type, r.amount, r.fee_amount]).sort(),
      [['dpm_first', 'dispute', -3000, 1500], ['dpm_second', 'dispute', -3000, 0], ['dpm_won', 'dispute_reversal', 3000, 0]],
    );
    assert.equal(rows.length, 3);
    const a = await accounts(scope);
    assert.equal(a.provider_receivable, 6000 - 100 - 4500 + 3000 - 3000, 'payment net, then -(A+F), +A, -A');
  });
});
