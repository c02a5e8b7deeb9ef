// An amount is one type from the gateway's request to the ledger's row: Minor, bigint minor units
// (services/contract/money.ts). It crosses to and from JSON numbers and Postgres rows only through
// money.ts's functions, which refuse what a double cannot hold exactly instead of rounding it. This
// scan over the server's and the CLI's sources (not the tests') fails on a `BigInt(` or `Number(`
// whose argument, up to its first parenthesis, says `amount` (`Number(refund.amount)`,
// `BigInt(r.fee_amount)`, `Number(rule.minAmount)`). A heuristic over names: an amount called
// something else passes it, which is why the code calls its amounts amounts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { projectPath } from '../services/platform/paths.js';
import { projectFiles } from './helpers/project-files.js';

const ROOTS = ['services', 'gateway', 'cli', 'all-in-one'];

/**
 * Files that may convert amounts themselves: money.ts, the crossings' one home. The connectors'
 * moves between our minor units and a provider's (services/connectors/minor-units.ts) work in
 * bigints and send the provider's amount through minorToJson too, so none needs a place here.
 */
const EXEMPT = new Set(['services/contract/money.ts']);

const CONVERSION = /\b(?:BigInt|Number)\([^()]*amount/gi;

/** Each line of the source where an amount-named expression is converted by hand (a call may span lines). */
function amountConversions(source: string): string[] {
  const lines = source.split('\n');
  return [...source.matchAll(CONVERSION)].map((m) => {
    const line = source.slice(0, m.index).split('\n').length;
    return `${line}: ${lines[line - 1].trim()}`;
  });
}

function sources(): string[] {
  return ROOTS.flatMap((root) => projectFiles(root))
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.test.ts') && !EXEMPT.has(f));
}

test('the scan sees an amount converted by hand, and lets other numbers be', () => {
  for (const line of ['amount: Number(refund.amount),', 'feeAmount: BigInt(r.fee_amount),', 'min_amount: Number(rule.minAmount),',
    'amount: BigInt(ok ? p.captured_amount : p.amount),', 'const n = Number(\n  body.amount);']) {
    assert.notDeepEqual(amountConversions(line), [], line);
  }
  for (const line of ['amount: minorToJson(refund.amount),', 'events: Number(res.events)', 'BigInt(pricing.feeBps)',
    'Number.isSafeInteger(o.amount)', 'score: Number(fee), note: money(input.amount)']) {
    assert.deepEqual(amountConversions(line), [], line);
  }
});

test('amounts cross to JSON numbers and from columns only through services/contract/money.ts', () => {
  const files = sources();
  assert.ok(files.includes('services/ledger/store.ts') && files.includes('gateway/routes/payments.ts'), 'the scan reads the sources');
  const found = files.flatMap((f) => amountConversions(readFileSync(projectPath(f), 'utf8')).map((line) => `${f}:${line}`));
  assert.deepEqual(found, []);
});
