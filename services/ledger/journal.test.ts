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

test('after any mix of payments, refunds, fees, adjustments, settlements and payouts the balance identities hold', () => {
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
      else if (r < 0.7) posting = { type: 'adjustment', amount: amount(200) - 100n, feeAmount: 0n, providerAccountId: 'pac_a' };
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
    assert.ok(b.settledByProviders - b.payoutsSent >= 0n, 'payouts never spent more than was settled');
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
