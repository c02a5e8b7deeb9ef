import assert from 'node:assert/strict';
import { test } from 'node:test';
import { balanceOf, type AccountTotals } from './balances.js';
import { isBalanced, movementLines, settlementLines, type JournalLine, type Posting } from './journal.js';

/** A deterministic pseudo-random source, so a failing mix can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

function totals(lines: JournalLine[]): AccountTotals {
  const t: AccountTotals = {};
  for (const l of lines) t[l.account] = (t[l.account] ?? 0n) + l.amount;
  return t;
}

test('every kind of movement posts a balanced entry', () => {
  const postings: Posting[] = [
    { type: 'payment', amount: 10_000n, feeAmount: 270n, providerAccountId: 'pac_a' },
    { type: 'refund', amount: -2_500n, feeAmount: 0n, providerAccountId: 'pac_a' },
    { type: 'refund', amount: -2_500n, feeAmount: 15n, providerAccountId: 'pac_a' },
    { type: 'fee', amount: 0n, feeAmount: 10n, providerAccountId: 'pac_a' },
    { type: 'fee', amount: 0n, feeAmount: -4n, providerAccountId: 'pac_a' },
    { type: 'adjustment', amount: -7n, feeAmount: 0n, providerAccountId: 'pac_a' },
    { type: 'payout', amount: -5_000n, feeAmount: 20n, providerAccountId: 'pac_b' },
    { type: 'dispute', amount: -2_500n, feeAmount: 1_500n, providerAccountId: 'pac_a' },
    { type: 'dispute_reversal', amount: 2_500n, feeAmount: 0n, providerAccountId: 'pac_a' },
  ];
  for (const p of postings) assert.ok(isBalanced(movementLines(p)), p.type);
  assert.ok(isBalanced(settlementLines(-205n, 'pac_a')));
  assert.deepEqual(settlementLines(0n, 'pac_a'), [], 'nothing moves, nothing is posted');
  // Lines of 0 are left out: a payment without a fee has two lines.
  assert.equal(movementLines({ type: 'payment', amount: 100n, feeAmount: 0n, providerAccountId: 'pac_a' }).length, 2);
});

test('a refund and the adjustment reversing it (failed after acceptance) leave every account as before', () => {
  const lines = [
    ...movementLines({ type: 'payment', amount: 5_000n, feeAmount: 145n, providerAccountId: 'pac_a' }),
    ...movementLines({ type: 'refund', amount: -1_000n, feeAmount: 0n, providerAccountId: 'pac_a' }),
    ...movementLines({ type: 'adjustment', amount: 1_000n, feeAmount: 0n, providerAccountId: 'pac_a' }),
  ];
  assert.ok(isBalanced(lines));
  const b = balanceOf('EUR', totals(lines));
  assert.deepEqual([b.processedGross, b.fees, b.processedNet, b.awaitingProviderSettlement], [5_000n, 145n, 4_855n, 4_855n]);
});

test('a dispute withdrawn with its fee, reinstated, withdrawn again: the balance moves by -(A+F), +A, -A', () => {
  const paid = movementLines({ type: 'payment', amount: 5_000n, feeAmount: 145n, providerAccountId: 'pac_a' });
  const figures = (lines: JournalLine[]) => {
    const b = balanceOf('EUR', totals(lines));
    return [b.processedGross, b.fees, b.processedNet, b.awaitingProviderSettlement];
  };
  const withdrawn = movementLines({ type: 'dispute', amount: -2_500n, feeAmount: 1_500n, providerAccountId: 'pac_a' });
  assert.deepEqual(withdrawn.map((l) => [l.account, l.amount, l.providerAccountId]), [
    ['provider_receivable', -4_000n, 'pac_a'], ['provider_fees', 1_500n, null], ['disputes', 2_500n, null],
  ]);
  const reinstated = movementLines({ type: 'dispute_reversal', amount: 2_500n, feeAmount: 0n, providerAccountId: 'pac_a' });
  const steps = [paid, [...paid, ...withdrawn], [...paid, ...withdrawn, ...reinstated], [...paid, ...withdrawn, ...reinstated, ...withdrawn]];
  assert.deepEqual(steps.map(figures), [
    [5_000n, 145n, 4_855n, 4_855n],
    [2_500n, 1_645n, 855n, 855n], // -(2500 + 1500) from net and from what the provider owes
    [5_000n, 1_645n, 3_355n, 3_355n], // +2500: the fee stays charged
    [2_500n, 3_145n, -645n, -645n], // a second chargeback with its own fee
  ]);
  assert.ok(steps.every(isBalanced));
});

test('a payout its bank returned: the adjustment on the payout gives settled funds back and takes it out of payouts', () => {
  const settled = settlementLines(9_000n, 'pac_a');
  const payout = movementLines({ type: 'payout', amount: -5_000n, feeAmount: 0n, providerAccountId: 'pac_b' });
  const returned = movementLines({ type: 'adjustment', amount: 5_000n, feeAmount: 0n, providerAccountId: 'pac_b', entityType: 'payout' });
  assert.ok(isBalanced(returned));
  assert.deepEqual(returned.map((l) => [l.account, l.amount]), [['settled_funds', 5_000n], ['payouts', -5_000n]]);
  const before = totals([...settled]);
  const after = totals([...settled, ...payout, ...returned]);
  for (const account of ['settled_funds', 'payouts', 'provider_receivable', 'adjustments'] as const) {
    assert.equal(after[account] ?? 0n, before[account] ?? 0n, account);
  }
});

test('after any mix of payments, refunds, fees, adjustments, disputes, settlements and payouts the balance identities hold', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const next = random(seed);
    const amount = (max: number) => BigInt(Math.floor(next() * max));
    const lines: JournalLine[] = [];
    let gross = 0n;
    let fees = 0n;
    let settled = 0n;
    let paidOut = 0n;
    let receivable = 0n;
    for (let i = 0; i < 40; i++) {
      const r = next();
      let posting: Posting | undefined;
      if (r < 0.35) posting = { type: 'payment', amount: amount(50_000) + 1n, feeAmount: amount(500), providerAccountId: 'pac_a' };
      else if (r < 0.5) posting = { type: 'refund', amount: -(amount(5_000) + 1n), feeAmount: amount(3), providerAccountId: 'pac_a' };
      else if (r < 0.6) posting = { type: 'fee', amount: 0n, feeAmount: amount(40) - 10n, providerAccountId: 'pac_a' };
      else if (r < 0.65) posting = { type: 'adjustment', amount: amount(200) - 100n, feeAmount: 0n, providerAccountId: 'pac_a' };
      else if (r < 0.7) {
        posting = next() < 0.6
          ? { type: 'dispute', amount: -(amount(5_000) + 1n), feeAmount: amount(2_000), providerAccountId: 'pac_a' }
          : { type: 'dispute_reversal', amount: amount(5_000) + 1n, feeAmount: 0n, providerAccountId: 'pac_a' };
      }
      else if (r < 0.85) {
        // A provider settles part of what it owes (or collects what the merchant owes it).
        const net = receivable > 0n ? receivable - amount(Number(receivable) / 2 + 1) : receivable;
        lines.push(...settlementLines(net, 'pac_a'));
        settled += net;
        receivable -= net;
      } else {
        const left = settled - paidOut;
        if (left > 100n) {
          const fee = 20n;
          posting = { type: 'payout', amount: -(amount(Number(left - fee)) + 1n), feeAmount: fee, providerAccountId: 'pac_b' };
          paidOut += -posting.amount + fee;
        }
      }
      if (!posting) continue;
      const ls = movementLines(posting);
      assert.ok(isBalanced(ls));
      lines.push(...ls);
      if (posting.type !== 'payout') {
        gross += posting.amount;
        fees += posting.feeAmount;
        receivable += posting.amount - posting.feeAmount;
      }
    }
    assert.ok(isBalanced(lines), `seed ${seed}: the journal balances`);
    const b = balanceOf('EUR', totals(lines));
    assert.equal(b.processedGross, gross, `seed ${seed}`);
    assert.equal(b.fees, fees);
    assert.equal(b.processedNet, b.processedGross - b.fees);
    assert.equal(b.settledByProviders, settled);
    assert.equal(b.awaitingProviderSettlement, b.processedNet - b.settledByProviders);
    assert.equal(b.payoutsSent, paidOut);
    // What is left of the settled funds; below zero when a provider collected a chargeback after a payout.
    assert.equal(b.settledByProviders - b.payoutsSent, totals(lines).settled_funds ?? 0n);
  }
});

test('an empty journal: every figure is zero and the note says the service holds no funds', () => {
  const b = balanceOf('USD', {});
  assert.deepEqual(
    [b.processedGross, b.fees, b.processedNet, b.settledByProviders, b.awaitingProviderSettlement, b.payoutsSent],
    [0n, 0n, 0n, 0n, 0n, 0n],
  );
  assert.match(b.note, /not a custodian/);
});
