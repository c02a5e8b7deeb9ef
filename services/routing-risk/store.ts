import { ASYNC_COMMIT_CTE, prepared, withTransaction, type Pool } from '../platform/db.js';
import { lockProjectList } from '../platform/list-lock.js';
import { MAX_ROUTING_RULES } from '../contract/project-caps.js';
import { sha256Hex } from '../platform/ids.js';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import type { RiskInput } from '../../proto/gen/svc/risk/v1/risk_pb.js';
import { NO_VELOCITY, VELOCITY_WINDOW_MS, type RiskAssessment, type VelocityCounts } from './risk-rules.js';
import type { PayoutCapability } from './payout-routing.js';
import type { ProviderAccount } from './provider-account.js';
import { REPORT_SQL, type ArmCounts } from './experiment-report.js';
import type { NewRule, RoutingRule } from './routing-rules.js';
import { healthColumn, historyRead, toHealth, type HistoryKey } from './history-read.js';
import { ruleLearns } from './learning-scopes.js';
import { BACKFILL_SQL } from './outcome-store.js';
import { scopeKey, type PlanningCache } from './planning-cache.js';
import type { RankedPlan } from './ranked-route.js';
import type { HealthHistory, SegmentHistory } from './strategies/index.js';
import { minorFromColumn } from '../contract/money.js';

/** The velocity keys of a payment as stored: digests, scoped to the project so they do not join across merchants. */
export function velocityKeys(scope: Scope, input: RiskInput) {
  const digest = (kind: string, v: string | undefined) => (v ? sha256Hex(`${scope.projectId}:${kind}:${v}`) : null);
  return {
    customer: digest('customer', input.customerKey?.trim().toLowerCase()),
    fingerprint: digest('fingerprint', input.deviceFingerprint),
    ip: digest('ip', input.deviceIp?.trim().toLowerCase()),
  };
}

const jsonOrNull = (value: object | null | undefined) => (value ? JSON.stringify(value) : null);

function toRule(r: Record<string, any>): RoutingRule {
  return {
    id: r.id,
    name: r.name,
    priority: r.priority,
    currencies: r.currencies,
    countries: r.countries,
    methods: r.methods,
    minAmount: r.min_amount === null ? null : minorFromColumn(r.min_amount),
    maxAmount: r.max_amount === null ? null : minorFromColumn(r.max_amount),
    providers: r.providers,
    strategy: r.strategy ?? null,
    variant: r.variant ?? null,
    experimentSince: new Date(r.experiment_since),
    createdAt: new Date(r.created_at),
  };
}

const RULE_COLUMNS =
  'id, name, priority, currencies, countries, methods, min_amount, max_amount, providers, strategy, variant, experiment_since, created_at';
const SCOPE = 'merchant_id = $1 AND project_id = $2 AND mode = $3';
const scopeValues = (s: Scope) => [s.merchantId, s.projectId, s.mode];

/**
 * Active accounts a scope may route to ($1 merchant, $2 project, $3 mode). Live mode reaches only
 * licensed providers' accounts connected to the project, so a live payment can never land on a
 * provider that moves no money. Test mode reaches the demo providers (the shared platform
 * accounts, or the project's own) and the project's own test-mode accounts at licensed providers
 * (the provider's sandbox). An account's own lists narrow what its provider serves; empty ones
 * leave the provider's.
 */
const ACCOUNTS_SQL = `SELECT p.id AS provider_id, p.code, p.name, p.kind, p.latency_ms,
         CASE WHEN cardinality(a.currencies) > 0 THEN a.currencies ELSE p.currencies END AS currencies,
         CASE WHEN cardinality(a.countries) > 0 THEN a.countries ELSE p.countries END AS countries,
         CASE WHEN cardinality(a.methods) > 0 THEN a.methods ELSE p.methods END AS methods,
         a.id AS account_id, a.fee_fixed, a.fee_bps
  FROM provider_accounts a JOIN providers p ON p.id = a.provider_id
  WHERE a.status = 'active' AND a.mode = $3
    AND CASE WHEN p.kind = 'demo' THEN $3 = 'test' AND (a.project_id IS NULL OR (a.merchant_id = $1 AND a.project_id = $2))
             ELSE a.merchant_id = $1 AND a.project_id = $2 END`;

const RULES_SQL = `SELECT ${RULE_COLUMNS} FROM routing_rules WHERE ${SCOPE}`;

/** Earlier decisions inside the velocity window sharing a key ($4–$6), between $7 and $8. */
const VELOCITY_SQL = `SELECT count(*) FILTER (WHERE customer_key_hash = $4)::int AS customer,
         count(*) FILTER (WHERE device_fingerprint_hash = $5)::int AS fingerprint,
         count(*) FILTER (WHERE device_ip_hash = $6)::int AS ip
  FROM risk_decisions
  WHERE ${SCOPE} AND created_at > $7 AND created_at <= $8
    AND (customer_key_hash = $4 OR device_fingerprint_hash = $5 OR device_ip_hash = $6)`;

const velocityValues = (keys: ReturnType<typeof velocityKeys>, at: Date) =>
  [keys.customer, keys.fingerprint, keys.ip, new Date(at.getTime() - VELOCITY_WINDOW_MS), at];

export type { HistoryKey };

export interface PlanningInputs {
  accounts: ProviderAccount[];
  rules: RoutingRule[];
  velocity: VelocityCounts;
  history: SegmentHistory;
  /** Each account's newest attempts in the payment's method and currency: never cached (history-read.ts). */
  health: HealthHistory;
}

// Rows come from a query or, in planningInputs, from json_agg (numbers and strings, not bigint and Date).
function toAccount(r: Record<string, any>): ProviderAccount {
  return {
    providerId: r.provider_id,
    providerCode: r.code,
    providerName: r.name,
    providerAccountId: r.account_id,
    connected: r.kind === 'licensed',
    currencies: r.currencies,
    countries: r.countries,
    methods: r.methods,
    feeFixed: minorFromColumn(r.fee_fixed),
    feeBps: r.fee_bps,
    latencyMs: r.latency_ms,
  };
}

/**
 * Postgres access of routing-risk; every query names its scope. With a cache (planning-cache.ts),
 * planning takes a scope's accounts and rules from it, and a rule changed here is dropped from it
 * before the change is answered, so the next plan in this process reads the rule as changed.
 */
export function createStore(pool: Pool, cache?: PlanningCache) {
  const changed = <T>(scope: Scope, result: T): T => {
    cache?.drop(scopeKey(scope));
    return result;
  };
  return {
    /** Active accounts a scope may route to (ACCOUNTS_SQL says which). */
    async accountsFor(scope: Scope): Promise<ProviderAccount[]> {
      const { rows } = await pool.query(ACCOUNTS_SQL, scopeValues(scope));
      return rows.map(toAccount);
    },

    /** What each provider can pay out to, by provider code (payout-routing.ts). */
    async payoutCapabilities(): Promise<Record<string, PayoutCapability>> {
      const { rows } = await pool.query(
        `SELECT p.code, c.destination_types, c.fee_fixed, c.fee_bps
         FROM payout_capabilities c JOIN providers p ON p.id = c.provider_id`,
      );
      return Object.fromEntries(rows.map((r) => [r.code, {
        destinationTypes: r.destination_types, feeFixed: minorFromColumn(r.fee_fixed), feeBps: r.fee_bps,
      }]));
    },

    /** Counts a scope's recorded outcomes for a rule that starts it learning (outcome-store.ts's BACKFILL_SQL); how many. */
    async backfillMinutes(scope: Scope): Promise<number> {
      const { rows } = await pool.query(BACKFILL_SQL, scopeValues(scope));
      return rows[0].counted as number;
    },

    async rulesFor(scope: Scope): Promise<RoutingRule[]> {
      const { rows } = await pool.query(`${RULES_SQL} ORDER BY priority, name`, scopeValues(scope));
      return rows.map(toRule);
    },

    /**
     * What planning a payment reads, in at most one round trip: the accounts and rules of its scope
     * unless the cache has them, its outcome history when a rule of the scope learns (only the bucket
     * under way when the cache has the closed ones), and its velocity when it carries a customer or
     * device. A scope whose cached rules do not learn, planned for a payment without a customer or
     * device, reads nothing.
     */
    async planningInputs(scope: Scope, input: RiskInput, at: Date, key: HistoryKey): Promise<PlanningInputs> {
      const cached = cache?.get(scope);
      const learns = !cached || cached.rules.some(ruleLearns);
      const keys = velocityKeys(scope, input);
      const counted = Boolean(keys.customer || keys.fingerprint || keys.ip);
      if (cached && !learns && !counted) return { ...cached, velocity: NO_VELOCITY, history: new Map(), health: new Map() };
      const values: unknown[] = counted ? [...scopeValues(scope), ...velocityValues(keys, at)] : scopeValues(scope);
      const columns = cached ? [] : [
        `(SELECT COALESCE(json_agg(a), '[]') FROM (${ACCOUNTS_SQL}) a) AS accounts`,
        `(SELECT COALESCE(json_agg(r ORDER BY r.priority, r.name), '[]') FROM (${RULES_SQL}) r) AS rules`,
      ];
      const history = learns ? historyRead(cache, scope, input, key) : undefined;
      if (history) {
        // The health of the cached accounts by their ids, so a cached plan reads no account row.
        const accounts = cached ? `unnest($${values.length + history.values.length + 1}::text[]) AS a (account_id)` : `(${ACCOUNTS_SQL}) a`;
        columns.push(history.column(values.length + 1), healthColumn(accounts, values.length + 1));
        values.push(...history.values, ...(cached ? [cached.accounts.map((a) => a.providerAccountId)] : []));
      }
      if (counted) columns.push('v.*');
      const since = cache?.reading();
      const { rows } = await pool.query(prepared(
        `SELECT ${columns.join(', ')} ${counted ? `FROM (${VELOCITY_SQL}) v` : ''}`,
        values,
      ));
      const r = rows[0];
      const scoped = cached ?? { accounts: r.accounts.map(toAccount), rules: r.rules.map(toRule) };
      if (!cached && since !== undefined) cache!.put(scope, since, scoped);
      return {
        ...scoped,
        velocity: counted ? { customer: r.customer, fingerprint: r.fingerprint, ip: r.ip } : NO_VELOCITY,
        history: history ? history.finish(r.history) : new Map(),
        health: history ? toHealth(r.health) : new Map(),
      };
    },

    /** Provider entries of a rule that name neither a known provider code nor an account this scope may use. */
    async unknownProviders(scope: Scope, entries: string[]): Promise<string[]> {
      const { rows } = await pool.query(
        `SELECT e FROM unnest($4::text[]) AS e
         WHERE NOT EXISTS (SELECT 1 FROM providers p WHERE p.code = e)
           AND NOT EXISTS (SELECT 1 FROM provider_accounts a WHERE a.id = e AND a.mode = $3
                             AND (a.project_id IS NULL OR (a.merchant_id = $1 AND a.project_id = $2)))`,
        [...scopeValues(scope), entries],
      );
      return rows.map((r) => r.e as string);
    },

    /**
     * The new rule; undefined when the scope already has a rule of that name; 'limit_reached' when it
     * has `max` rules, counted under the scope's lock.
     */
    async createRule(
      scope: Scope, id: string, rule: NewRule, at: Date, max = MAX_ROUTING_RULES,
    ): Promise<RoutingRule | 'limit_reached' | undefined> {
      const created = await withTransaction(pool, async (tx) => {
        await lockProjectList(tx, 'routing_risk.routing_rules', scope);
        const count = await tx.query(`SELECT count(*)::int AS n FROM routing_rules WHERE ${SCOPE}`, scopeValues(scope));
        if (count.rows[0].n >= max) return 'limit_reached' as const;
        const { rows } = await tx.query(
          `INSERT INTO routing_rules (id, merchant_id, project_id, mode, name, priority, currencies, countries, methods,
             min_amount, max_amount, providers, created_at, strategy, variant, experiment_since)
           VALUES ($4, $1, $2, $3, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $13)
           ON CONFLICT (merchant_id, project_id, mode, name) DO NOTHING
           RETURNING ${RULE_COLUMNS}`,
          [
            ...scopeValues(scope), id, rule.name, rule.priority, rule.currencies, rule.countries, rule.methods,
            rule.minAmount, rule.maxAmount, rule.providers, at, jsonOrNull(rule.strategy), jsonOrNull(rule.variant),
          ],
        );
        return rows[0] && toRule(rows[0]);
      });
      return created === 'limit_reached' ? created : changed(scope, created);
    },

    /**
     * Changes a rule under a row lock: `change` gets the rule as stored and returns it as it should
     * be (or throws, changing nothing). A new strategy, variant or set of conditions starts a new
     * experiment period.
     * Undefined when the scope has no such rule.
     */
    async updateRule(
      scope: Scope, id: string, at: Date,
      change: (current: RoutingRule) => Promise<{ rule: NewRule; restart: boolean }>,
    ): Promise<RoutingRule | undefined> {
      return changed(scope, await withTransaction(pool, async (client) => {
        const found = await client.query(`SELECT ${RULE_COLUMNS} FROM routing_rules WHERE ${SCOPE} AND id = $4 FOR UPDATE`,
          [...scopeValues(scope), id]);
        if (!found.rows[0]) return undefined;
        const { rule, restart } = await change(toRule(found.rows[0]));
        const { rows } = await client.query(
          `UPDATE routing_rules SET priority = $5, providers = $6, strategy = $7, variant = $8,
             experiment_since = CASE WHEN $9 THEN $10 ELSE experiment_since END,
             currencies = $11, countries = $12, methods = $13, min_amount = $14, max_amount = $15
           WHERE ${SCOPE} AND id = $4 RETURNING ${RULE_COLUMNS}`,
          [...scopeValues(scope), id, rule.priority, rule.providers, jsonOrNull(rule.strategy), jsonOrNull(rule.variant), restart, at,
            rule.currencies, rule.countries, rule.methods, rule.minAmount?.toString() ?? null, rule.maxAmount?.toString() ?? null],
        );
        return toRule(rows[0]);
      }));
    },

    /** A rule's decisions since its experiment began, per arm, with their outcomes (experiment-report.ts). */
    async armCounts(scope: Scope, rule: RoutingRule): Promise<ArmCounts[]> {
      const { rows } = await pool.query(REPORT_SQL, [...scopeValues(scope), rule.id, rule.experimentSince ?? rule.createdAt]);
      return rows.map((r) => ({
        arm: r.arm, payments: r.payments, approved: r.approved, firstAttemptApproved: r.first_attempt_approved,
        attempts: r.attempts, latencyMs: r.latency_ms, fees: r.fees, approvedAmount: r.approved_amount,
      }));
    },

    async ruleById(scope: Scope, id: string): Promise<RoutingRule | undefined> {
      const { rows } = await pool.query(`${RULES_SQL} AND id = $4`, [...scopeValues(scope), id]);
      return rows[0] && toRule(rows[0]);
    },

    async deleteRule(scope: Scope, id: string): Promise<RoutingRule | undefined> {
      const { rows } = await pool.query(
        `DELETE FROM routing_rules WHERE ${SCOPE} AND id = $4 RETURNING ${RULE_COLUMNS}`,
        [...scopeValues(scope), id],
      );
      return changed(scope, rows[0] && toRule(rows[0]));
    },

    /**
     * The risk and routing decisions of many plans in one statement, after they were answered
     * (decision-writer.ts): a routing decision's row is the record of an answer already given.
     */
    async recordDecisions(decisions: readonly Decision[]): Promise<void> {
      const col = <T>(f: (d: Decision) => T) => decisions.map(f);
      const keys = decisions.map((d) => velocityKeys(d.scope, d.input));
      await pool.query(prepared(
        `WITH ${ASYNC_COMMIT_CTE}, d AS (
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[],
             $8::jsonb[], $9::timestamptz[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
             $16::jsonb[], $17::jsonb[], $18::text[], $19::jsonb[], $20::text[], $21::bool[], $22::text[])
             AS t(risk_id, merchant_id, project_id, mode, payment_id, score, outcome, reasons, created_at,
               customer_key_hash, device_fingerprint_hash, device_ip_hash, routing_id, rule, rule_id, candidates,
               skipped, strategy, scores, reason, explored, arm)
         ), r AS (
           INSERT INTO risk_decisions (id, merchant_id, project_id, mode, payment_id, score, outcome, reasons, created_at,
             customer_key_hash, device_fingerprint_hash, device_ip_hash)
           SELECT risk_id, merchant_id, project_id, mode, payment_id, score, outcome, reasons, created_at,
             customer_key_hash, device_fingerprint_hash, device_ip_hash FROM d)
         INSERT INTO routing_decisions (id, merchant_id, project_id, mode, payment_id, rule, rule_id, candidates, created_at,
           skipped, strategy, scores, reason, explored, arm)
         SELECT routing_id, merchant_id, project_id, mode, payment_id, rule, rule_id, candidates, created_at,
           skipped, strategy, scores, reason, explored, arm
         FROM d, async_commit WHERE routing_id IS NOT NULL`,
        [
          col((d) => d.risk.id), col((d) => d.scope.merchantId), col((d) => d.scope.projectId), col((d) => d.scope.mode),
          col((d) => d.input.paymentId), col((d) => d.risk.score), col((d) => d.risk.outcome),
          col((d) => JSON.stringify(d.risk.reasons)), col((d) => d.at),
          keys.map((k) => k.customer), keys.map((k) => k.fingerprint), keys.map((k) => k.ip),
          col((d) => d.routing?.id ?? null), col((d) => d.routing?.rule ?? null), col((d) => d.routing?.ruleId ?? null),
          col((d) => JSON.stringify(d.routing?.candidates.map((c) => c.providerAccountId) ?? [])),
          col((d) => JSON.stringify(d.routing?.skipped.map((k) => ({ provider_account_id: k.providerAccountId, reason: k.reason })) ?? [])),
          col((d) => d.routing?.ranking.strategy ?? null),
          col((d) => JSON.stringify(d.routing?.ranking.ranked.map((c) => ({
            provider_account_id: c.account.providerAccountId, score: c.score, sample: c.sample ?? null, note: c.note,
          })) ?? [])),
          col((d) => d.routing?.ranking.reason ?? null), col((d) => d.routing?.ranking.explored ?? false),
          col((d) => d.routing?.arm ?? null),
        ],
      ));
    },
  };
}

/** One plan's decisions as they are recorded: risk always, routing unless risk blocked the payment. */
export interface Decision {
  scope: Scope;
  input: RiskInput;
  risk: { id: string } & RiskAssessment;
  routing: ({ id: string } & RankedPlan) | undefined;
  at: Date;
}

export type RoutingRiskStore = ReturnType<typeof createStore>;
