// Stripe's payout table, row by row: each code is found where Stripe sends it, a category agrees with
// its outcome, and docs/connectors.md ("Payouts") prints the row as it is. Plus the payout amount
// rule and what a Stripe payout's status means.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type Stripe from 'stripe';
import { FAILURE_CATEGORIES } from '../../contract/enums.js';
import { CONDITIONS, ERROR_CODES, ERROR_TYPES, FAILURE_CODES, payoutRuleFor, type PayoutRule } from './payout-errors.js';
import { fromPayout, payoutParams, stripePayoutAmount } from './payouts.js';

const TABLES: Array<[string, Readonly<Record<string, PayoutRule>>]> = [
  ['failure_code', FAILURE_CODES], ['code', ERROR_CODES], ['type', ERROR_TYPES], ['condition', CONDITIONS],
];
const docs = readFileSync(new URL('../../../../docs/connectors.md', import.meta.url), 'utf8');
const payout = (extra: Partial<Stripe.Payout>) => ({ id: 'po_1', status: 'pending', failure_code: null, failure_message: null, ...extra }) as Stripe.Payout;

for (const [field, table] of TABLES) {
  for (const [key, rule] of Object.entries(table)) {
    test(`stripe payout ${field} ${key} → ${rule.outcome} (${rule.category} ${rule.code})`, () => {
      assert.ok((FAILURE_CATEGORIES as readonly string[]).includes(rule.category));
      assert.match(rule.code, /^[a-z_]+$/);
      assert.ok(rule.message.endsWith('.'));
      // Only a refusal about the beneficiary's account is hard; an open answer is never a failure.
      assert.equal(rule.category === 'hard', rule.outcome === 'hard_decline');
      if (field === 'failure_code') {
        const r = fromPayout(payout({ status: 'failed', failure_code: key }));
        assert.deepEqual([r.outcome, r.failure?.code, r.providerCode], [rule.outcome, rule.code, key]);
      }
      if (field === 'code') assert.equal(payoutRuleFor({ type: 'StripeInvalidRequestError', code: key }), rule);
      if (field === 'type') assert.equal(payoutRuleFor({ type: key }), rule);
      const row = `| \`${key}\` | ${rule.outcome} | ${rule.category} | ${rule.code} |`;
      assert.ok(docs.includes(row), `docs/connectors.md lacks the row ${row}`);
    });
  }
}

test('stripe payout statuses: paid a success, pending and in_transit on their way, canceled and an unknown failure failed', () => {
  assert.equal(fromPayout(payout({ status: 'paid' })).outcome, 'success');
  assert.equal(fromPayout(payout({ status: 'pending' })).outcome, 'pending');
  assert.equal(fromPayout(payout({ status: 'in_transit' })).outcome, 'pending');
  assert.equal(fromPayout(payout({ status: 'canceled' })).failure?.code, 'payout_canceled');
  assert.equal(fromPayout(payout({ status: 'failed', failure_code: 'brand_new' })).failure?.code, 'payout_failed');
  assert.equal(payoutRuleFor({}).outcome, 'timeout', 'an error nobody knows may have sent the payout');
});

test('stripe payout requests: wallets refused, amounts by Stripe\'s rule, HUF and TWD in whole units only', () => {
  const req = (type: string, amount: bigint, currency: string, token: string | null = 'ba_1') => ({
    account: { providerCode: 'stripe', id: 'pac_1' }, payoutId: 'po_x', amount, currency,
    destination: { type, token, holderName: null, country: null }, signal: AbortSignal.timeout(1000),
  });
  assert.equal(payoutParams(req('wallet', 100n, 'EUR')), CONDITIONS.destination_not_supported);
  assert.deepEqual(payoutParams(req('card_token', 1050n, 'EUR', 'card_1')),
    { amount: 1050, currency: 'eur', destination: 'card_1', metadata: { payout_id: 'po_x' } });
  assert.equal('destination' in (payoutParams(req('bank_account', 1050n, 'EUR', null)) as object), false, 'the default external account');
  assert.equal(stripePayoutAmount(1050n, 'TWD'), undefined);
  assert.equal(stripePayoutAmount(1000n, 'TWD'), 1000n);
  assert.equal(stripePayoutAmount(5n, 'HUF'), 500n);
  assert.equal(stripePayoutAmount(5124n, 'KWD'), undefined);
});
