// The checks every row of a connector's payment error table must pass, for the tables' tests
// (connectors/<provider>/errors.test.ts): what a row says must agree with what the
// orchestrator will do with its outcome, the lookup must find it where the provider sends it, and
// the connector's README (connectors/<provider>/README.md) must print it as it is. Each provider
// brings its tables and its lookup.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isDeclineOutcome, isDeclineReason } from '../../services/contract/decline-reasons.js';
import { FAILURE_CATEGORIES } from '../../services/contract/enums.js';
import { projectPath } from '../../services/platform/paths.js';
import type { ErrorRule } from '../../services/connectors/error-rules.js';
import { nextStep } from '../../services/payments/payments/attempt-outcomes.js';

export type ErrorTables<R extends ErrorRule> = Array<[field: string, table: Readonly<Record<string, R>>]>;

/** The connector's own page, where its error tables are printed. */
const readme = (provider: string) => readFileSync(projectPath('services', 'connectors', provider, 'README.md'), 'utf8');

/** A row as the README prints it: `key` | outcome | category | code | failover. */
function docsRow(keyCell: string, rule: ErrorRule): string {
  return `| ${keyCell} | ${rule.outcome} | ${rule.category} | ${rule.code} | ${rule.failover ? 'yes' : 'no'} |`;
}

/** One test per row of each table, named `<provider> <field> <key> → …`. */
export function testErrorTables<R extends ErrorRule>(provider: string, tables: ErrorTables<R>, by: {
  /** Asserts that the provider's lookup finds the row from an answer carrying `key` in `field`. */
  lookup(field: string, key: string, rule: R): void;
  /** The row's first cell as the docs print it, where it says more than `key`. */
  keyCell?(field: string, key: string, rule: R): string | undefined;
}): void {
  const docs = readme(provider);
  for (const [field, table] of tables) {
    for (const [key, rule] of Object.entries(table)) {
      test(`${provider} ${field} ${key} → ${rule.outcome} (${rule.category} ${rule.code}, failover ${rule.failover})`, () => {
        assert.ok((FAILURE_CATEGORIES as readonly string[]).includes(rule.category));
        assert.match(rule.code, /^[a-z_]+$/);
        assert.ok(rule.message.endsWith('.'));
        // The orchestrator decides from the outcome alone: the flag must say what it will do.
        assert.equal(nextStep(rule.outcome, true) === 'fail_over', rule.failover);
        // A hard decline is final, a soft or policy refusal tries the next provider.
        assert.equal(rule.category === 'hard', rule.outcome === 'hard_decline');
        if (rule.category === 'soft' || rule.category === 'policy') assert.equal(rule.failover, true);
        // A decline says why in the contract's words; a failure that is no decline has no reason.
        assert.equal(isDeclineOutcome(rule.outcome) ? isDeclineReason(rule.declineReason) : rule.declineReason === undefined, true, `${key}: ${rule.declineReason}`);
        by.lookup(field, key, rule);
        const row = docsRow(by.keyCell?.(field, key, rule) ?? `\`${key}\``, rule);
        assert.ok(docs.includes(row), `connectors/${provider}/README.md lacks the row ${row}`);
      });
    }
  }
}
