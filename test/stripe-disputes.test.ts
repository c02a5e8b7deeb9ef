// Stripe's disputes through the REST gateway, with the official SDK pointed at Stripe's stand-in:
// a live merchant's Stripe payment is disputed (charge.dispute.created, .funds_withdrawn, signed as
// Stripe signs them), the merchant submits evidence with a PDF (the SDK's files.create and
// disputes.update reach the stand-in), Stripe decides it won (.closed and .funds_reinstated, out
// of order), and redeliveries change nothing: one withdrawal and one reinstatement, and the
// merchant's events dispute.created, .updated and .closed once each change; a test-mode account's
// dispute reaches the merchant's (http, test-mode) endpoint signed. Accept is Stripe's disputes.close; a dispute
// about a payment not routed here is recorded unmatched for the operator.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { expectError } from './helpers/api-assertions.js';
import { eventually } from './helpers/eventually.js';
import { startLiveStandIns, type LiveStandIns } from './helpers/live-stand-ins.js';
import { request } from './helpers/stack.js';
import { deliver, signed, stripeEvent } from './helpers/stripe-events.js';
import type { StandInEvent } from './helpers/stripe-stand-in-disputes.js';
import { startStripeStandIn } from './helpers/stripe-stand-in.js';
import { contractSignatureValid, startReceiver } from './webhooks-support.js';

const KEY = `sk_live_standin_${randomBytes(8).toString('hex')}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(64, 0x20)]);

describe('disputes at Stripe, through the REST gateway', () => {
  let world: LiveStandIns<Record<string, never>>;
  let m: Awaited<ReturnType<LiveStandIns<Record<string, never>>['stack']['newMerchantKey']>> & { accountId: string };

  before(async () => {
    world = await startLiveStandIns(KEY, {});
    const merchant = await world.stack.newMerchantKey('live');
    m = { ...merchant, accountId: await world.stack.connectLive(merchant.projectId, world.stripeEu(WEBHOOK_SECRET)) };
  });
  after(async () => {
    await world?.close();
  });

  const api = (method: string, path: string, body?: unknown) => request(world.stack.baseUrl, method, path, { key: m.secret, body });
  const send = (e: StandInEvent) => deliver(world.stack.baseUrl, m.accountId, signed({ id: e.id, json: e.json }, WEBHOOK_SECRET));
  async function paid(): Promise<{ paymentId: string; intentId: string }> {
    const res = await world.stack.pay(m.secret, { payment_method: { type: 'card', token: 'pm_card_visa' } });
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    return { paymentId: res.body.id, intentId: res.body.attempts[0].provider_payment_id };
  }
  const disputeOf = async (paymentId: string) => (await api('GET', `/v1/disputes?payment_id=${paymentId}`)).body.data as any[];
  /** What Stripe's balance holds (its balance transactions' nets) and our balance's net for the merchant. */
  const stripeNet = () => [...world.stripe.balanceTransactions.values()].reduce((t, bt) => t + Number(bt.net), 0);
  const ourNet = async () => ((await api('GET', '/v1/balances')).body.data as any[]).find((b) => b.currency === 'EUR')?.processed_net ?? 0;
  /** Waits until our net has moved by what Stripe's did since `from`, and answers both moves. */
  const movedAlike = (from: { stripe: number; ours: number }) => eventually('the balance moved as Stripe\'s did', async () => {
    const moved = { stripe: stripeNet() - from.stripe, ours: (await ourNet()) - from.ours };
    return moved.stripe === moved.ours ? moved : undefined;
  });
  const movements = async (disputeId: string) => (await world.stack.query(
    'SELECT kind, amount::int, fee_amount::int FROM payments.dispute_fund_movements WHERE dispute_id = $1 ORDER BY seq', [disputeId],
  )).rows;

  test('opened by notification, funds withdrawn, evidence submitted through the SDK, won; redelivered and out of order, one movement each', async () => {
    const { paymentId, intentId } = await paid();
    await eventually('the payment in the ledger', async () => (await api('GET', `/v1/transactions?type=payment`)).body.data.find((t: any) => t.payment_id === paymentId));
    const paidAt = { stripe: stripeNet(), ours: await ourNet() };
    const opened = world.stripe.openDispute(intentId, 'product_not_received');
    for (const e of opened.events) {
      const res = await send(e);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.new_notifications, 1);
    }
    const [d] = await disputeOf(paymentId);
    assert.deepEqual(
      [d.amount, d.currency, d.fee_amount, d.reason, d.provider_reason, d.stage, d.status, d.funds_withdrawn],
      [2500, 'EUR', 1500, 'product_not_received', 'product_not_received', 'chargeback', 'needs_response', true],
    );
    assert.deepEqual([d.provider_dispute_id, d.provider.code], [opened.dispute.id, 'stripe']);
    assert.equal(new Date(d.evidence_due_by).getTime(), Number((opened.dispute.evidence_details as any).due_by) * 1000);
    assert.deepEqual(await movements(d.id), [{ kind: 'withdrawal', amount: 2500, fee_amount: 1500 }]);
    // Our balance moves exactly as Stripe's: the amount and its dispute fee withdrawn.
    assert.deepEqual(await movedAlike(paidAt), { stripe: -4000, ours: -4000 });
    const withdrawnAt = { stripe: stripeNet(), ours: await ourNet() };

    // Stripe retries both: recorded once, nothing moves again.
    for (const e of opened.events) assert.equal((await send(e)).body.new_notifications, 0);
    assert.equal((await movements(d.id)).length, 1);

    const doc = await api('POST', `/v1/disputes/${d.id}/documents`, { filename: 'delivery.pdf', type: 'application/pdf', content: PDF.toString('base64') });
    assert.equal(doc.status, 201, JSON.stringify(doc.body));
    const submitted = await api('POST', `/v1/disputes/${d.id}/evidence`, {
      product_description: 'A desk lamp', shipping_carrier: 'DHL', shipping_tracking_number: 'JD014600003828374920',
      customer_communication: 'The customer confirmed receipt by mail.', documents: [doc.body.id], submit: true,
    });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    assert.equal(submitted.body.status, 'under_review');
    // What the SDK sent: the PDF as a dispute_evidence file, then the evidence naming it, submitted.
    assert.deepEqual(world.stripe.files.map((f) => [f.purpose, f.filename, f.type, f.pdf]), [['dispute_evidence', 'delivery.pdf', 'application/pdf', true]]);
    const atStripe = world.stripe.disputes.get(opened.dispute.id)!;
    assert.equal(atStripe.status, 'under_review');
    assert.deepEqual(atStripe.evidence, {
      product_description: 'A desk lamp', shipping_carrier: 'DHL', shipping_tracking_number: 'JD014600003828374920',
      uncategorized_text: 'Customer communication:\nThe customer confirmed receipt by mail.', uncategorized_file: world.stripe.files[0].id,
    });
    const update = world.stripe.requests.find((r) => r.method === 'POST' && r.path === `/v1/disputes/${opened.dispute.id}`)!;
    assert.equal(update.params.submit, 'true');
    // Stripe's charge.dispute.updated for the submission agrees with what its answer said.
    assert.equal((await send(world.stripe.events.at(-1)!)).body.new_notifications, 1);

    // Won: Stripe sends .closed and .funds_reinstated; they arrive the other way round, then again.
    const [closed, reinstated] = world.stripe.decideDispute(opened.dispute.id, 'won');
    assert.equal((await send(reinstated)).status, 200);
    assert.equal((await send(closed)).status, 200);
    for (const e of [closed, reinstated, ...opened.events]) assert.equal((await send(e)).body.new_notifications, 0);
    const won = (await api('GET', `/v1/disputes/${d.id}`)).body;
    assert.deepEqual([won.status, won.funds_withdrawn], ['won', false]);
    assert.deepEqual(await movements(d.id), [
      { kind: 'withdrawal', amount: 2500, fee_amount: 1500 }, { kind: 'reinstatement', amount: 2500, fee_amount: 0 },
    ]);
    const funds = await world.stack.query(
      `SELECT payload->'data'->'object'->>'kind' AS kind FROM payments.outbox
       WHERE type = 'internal.dispute.funds_moved' AND payload->'data'->'object'->>'dispute_id' = $1 ORDER BY seq`, [d.id],
    );
    assert.deepEqual(funds.rows.map((r) => r.kind), ['withdrawal', 'reinstatement']);
    // Reinstated as Stripe reinstates: the amount back, the fee kept.
    assert.deepEqual(await movedAlike(withdrawnAt), { stripe: 2500, ours: 2500 });

    // The merchant's events: created, updated (evidence staged, submitted), closed (won) once.
    const got = await eventually('the dispute\'s events', async () => {
      const listed = (await api('GET', '/v1/events?limit=100')).body.data as any[];
      const mine = listed.filter((e) => e.data.object.id === d.id).reverse();
      return mine.some((e) => e.type === 'dispute.closed') ? mine : undefined;
    });
    const types = got.map((e) => e.type);
    assert.equal(types[0], 'dispute.created');
    assert.equal(types.filter((t) => t === 'dispute.created').length, 1);
    assert.ok(types.includes('dispute.updated'));
    assert.equal(types.filter((t) => t === 'dispute.closed').length, 1);
    assert.deepEqual(got.find((e) => e.type === 'dispute.closed').data.object.status, 'won');
  });

  test('accept is Stripe\'s disputes.close; the dispute is accepted here and lost at Stripe, its funds stay withdrawn', async () => {
    const { paymentId, intentId } = await paid();
    const opened = world.stripe.openDispute(intentId);
    for (const e of opened.events) await send(e);
    const [d] = await disputeOf(paymentId);
    const accepted = await api('POST', `/v1/disputes/${d.id}/accept`);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual([accepted.body.status, accepted.body.funds_withdrawn], ['accepted', true]);
    assert.ok(world.stripe.requests.some((r) => r.method === 'POST' && r.path === `/v1/disputes/${opened.dispute.id}/close`));
    assert.equal(world.stripe.disputes.get(opened.dispute.id)!.status, 'lost');
    // Stripe's charge.dispute.closed (lost) after the accept moves nothing backwards or again.
    assert.equal((await send(world.stripe.events.at(-1)!)).status, 200);
    assert.equal((await api('GET', `/v1/disputes/${d.id}`)).body.status, 'accepted');
    assert.equal((await movements(d.id)).length, 1);
  });

  test('Stripe refusing an action is 409 provider_declined in its words, and the dispute is unchanged', async () => {
    const { paymentId, intentId } = await paid();
    const opened = world.stripe.openDispute(intentId);
    for (const e of opened.events) await send(e);
    const [d] = await disputeOf(paymentId);
    // Stripe closed it meanwhile, and its notification has not arrived yet.
    world.stripe.disputes.get(opened.dispute.id)!.status = 'lost';
    const refused = await api('POST', `/v1/disputes/${d.id}/accept`);
    expectError(refused, 409, 'provider_error', 'provider_declined', 'id');
    assert.match(refused.body.error.message, /^Stripe refused: This dispute is lost and cannot be closed\./);
    assert.equal((await api('GET', `/v1/disputes/${d.id}`)).body.status, 'needs_response');
    assert.equal((await movements(d.id)).length, 1);
  });

  test('an inquiry moves no money; when it becomes a chargeback the funds are withdrawn', async () => {
    const { paymentId, intentId } = await paid();
    const opened = world.stripe.openDispute(intentId, 'fraudulent', { inquiry: true });
    await send(opened.events[0]);
    let [d] = await disputeOf(paymentId);
    assert.deepEqual([d.stage, d.status, d.funds_withdrawn], ['inquiry', 'needs_response', false]);
    assert.deepEqual(await movements(d.id), []);
    const escalated = { ...world.stripe.disputes.get(opened.dispute.id)!, status: 'needs_response' };
    escalated.balance_transactions = [{ amount: -2500, fee: 1500, currency: 'eur' }];
    const res = await deliver(world.stack.baseUrl, m.accountId, signed(stripeEvent('charge.dispute.funds_withdrawn', escalated), WEBHOOK_SECRET));
    assert.equal(res.status, 200);
    [d] = await disputeOf(paymentId);
    assert.deepEqual([d.stage, d.status, d.funds_withdrawn], ['chargeback', 'needs_response', true]);
    assert.deepEqual(await movements(d.id), [{ kind: 'withdrawal', amount: 2500, fee_amount: 1500 }]);
  });

  test('a dispute about a payment never routed here is recorded unmatched with its dispute, for the operator', async () => {
    const stranger = {
      id: 'dp_standinStranger', object: 'dispute', amount: 4200, currency: 'eur', charge: 'ch_elsewhere', payment_intent: 'pi_elsewhere',
      reason: 'fraudulent', status: 'needs_response', balance_transactions: [], created: Math.floor(Date.now() / 1000),
      evidence_details: { due_by: null }, metadata: {},
    };
    const event = stripeEvent('charge.dispute.created', stranger);
    const res = await deliver(world.stack.baseUrl, m.accountId, signed(event, WEBHOOK_SECRET));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.new_notifications, 1);
    const { rows } = await world.stack.query(
      'SELECT subject, effect, dispute_id, note FROM payments.provider_notifications WHERE provider_account_id = $1 AND event_id = $2',
      [m.accountId, event.id],
    );
    assert.deepEqual([rows[0].subject, rows[0].effect, rows[0].dispute_id], ['dispute', 'unmatched', null]);
    assert.match(rows[0].note, /dispute dp_standinStranger of payment pi_elsewhere: no payment of this account/);
    const none = await world.stack.query('SELECT count(*)::int AS n FROM payments.disputes WHERE provider_dispute_id = $1', ['dp_standinStranger']);
    assert.equal(none.rows[0].n, 0);
  });

  test('a test-mode account\'s dispute reaches the merchant\'s endpoint as dispute.created, .updated and .closed, signed', async () => {
    const testKey = `sk_test_standin_${randomBytes(8).toString('hex')}`;
    const sandbox = await startStripeStandIn({ secretKeys: [testKey] });
    const receiver = await startReceiver(200);
    try {
      const t = await world.stack.newMerchantKey('test');
      const accountId = (await world.stack.manage('POST', `/projects/${t.projectId}/provider-accounts`, {
        mode: 'test', provider: 'stripe', name: 'Stripe test',
        credentials: { secret_key: testKey, webhook_secret: WEBHOOK_SECRET, api_base_url: sandbox.baseUrl },
      })).body.id as string;
      const endpoint = await world.stack.manage('POST', `/projects/${t.projectId}/webhook-endpoints`, {
        mode: 'test', url: receiver.url, events: ['dispute.created', 'dispute.updated', 'dispute.closed'],
      });
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
      const paid = await world.stack.pay(t.secret, { payment_method: { type: 'card', token: 'pm_card_visa', provider_code: 'stripe' } });
      assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
      assert.equal(paid.body.attempts[0].provider_account_id, accountId);
      const opened = sandbox.openDispute(paid.body.attempts[0].provider_payment_id);
      const sendTo = (e: StandInEvent) => deliver(world.stack.baseUrl, accountId, signed({ id: e.id, json: e.json }, WEBHOOK_SECRET));
      for (const e of [...opened.events, ...sandbox.decideDispute(opened.dispute.id, 'lost')]) assert.equal((await sendTo(e)).status, 200);
      const got = await eventually('the endpoint\'s dispute webhooks', async () => {
        const mine = receiver.received.map((r) => ({ r, e: JSON.parse(r.body) })).filter(({ e }) => e.type?.startsWith('dispute.'));
        return ['dispute.created', 'dispute.updated', 'dispute.closed'].every((t) => mine.some(({ e }) => e.type === t)) ? mine : undefined;
      });
      for (const { r } of got) assert.ok(contractSignatureValid(r.body, r.headers['svc-signature'] as string, endpoint.body.secret));
      // Delivery is at-least-once and may arrive out of order (the contract's webhooks): each is there.
      const types = new Set(got.map(({ e }) => e.type));
      assert.deepEqual([...types].sort(), ['dispute.closed', 'dispute.created', 'dispute.updated'], 'opened, the withdrawal, closed');
      const closed = got.find(({ e }) => e.type === 'dispute.closed')!.e.data.object;
      assert.deepEqual([closed.status, closed.funds_withdrawn, closed.payment_id], ['lost', true, paid.body.id]);
    } finally {
      await receiver.close();
      await sandbox.close();
    }
  });
});
