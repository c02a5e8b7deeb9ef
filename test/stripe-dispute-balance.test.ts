// Stripe's dispute balance transactions read from a payout by the connector's settlement reader,
// with the official SDK pointed at the Stripe stand-in: a dispute's withdrawal (an `adjustment`
// reported as `dispute`, its fee Stripe's dispute fee) and its reinstatement (`dispute_reversal`)
// are dispute items named by the dispute and its PaymentIntent, not costs of the batch.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import Stripe from 'stripe';
import { hostOptions } from '../services/connectors/stripe/client.js';
import { listStripeSettlements } from '../services/connectors/stripe/settlements.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';

const KEY = `sk_test_standin_${randomBytes(6).toString('hex')}`;
let stripe: StripeStandIn;

before(async () => {
  stripe = await startStripeStandIn({ secretKeys: [KEY] });
});
after(() => stripe?.close());

test('a payout\'s dispute and dispute_reversal adjustments are dispute items, the rest as before', async () => {
  const client = new Stripe(KEY, { ...hostOptions(stripe.baseUrl), maxNetworkRetries: 0 });
  const pi = await client.paymentIntents.create({
    amount: 4000, currency: 'eur', payment_method: 'pm_card_visa', confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
  });
  assert.equal(pi.status, 'succeeded');
  const { dispute: dp } = stripe.openDispute(pi.id);
  stripe.decideDispute(dp.id, 'won');
  const payout = stripe.payOut('eur');

  const [s, ...more] = await listStripeSettlements(client);
  assert.equal(more.length, 0);
  assert.equal(s.reference, payout.id);
  const fee = stripe.chargeFee(4000);
  assert.deepEqual(s.items, [
    { type: 'dispute_reversal', providerReference: dp.id, paymentReference: pi.id, amount: 4000n, fee: 0n },
    { type: 'dispute', providerReference: dp.id, paymentReference: pi.id, amount: -4000n, fee: 1500n },
    { type: 'payment', providerReference: pi.id, amount: 4000n, fee: BigInt(fee) },
  ]);
  assert.deepEqual(s.fees, [], 'no dispute line is a cost of the batch');
});
