import type { Pool } from '../shared/db.js';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import type { RiskAssessment } from './risk-rules.js';
import type { ProviderAccount, RoutePlan } from './route-planner.js';

/** Postgres access of routing-risk; every query names its scope. */
export function createStore(pool: Pool) {
  return {
    /** Active accounts a scope may route to: in test mode the shared demo accounts. */
    async accountsFor(scope: Scope): Promise<ProviderAccount[]> {
      const { rows } = await pool.query(
        `SELECT p.id AS provider_id, p.code, p.name, p.currencies, p.countries, p.methods, p.latency_ms,
                a.id AS account_id, a.fee_fixed, a.fee_bps
         FROM provider_accounts a JOIN providers p ON p.id = a.provider_id
         WHERE a.status = 'active' AND a.mode = $1
           AND ((a.mode = 'test' AND p.kind = 'demo' AND a.project_id IS NULL)
             OR (a.merchant_id = $2 AND a.project_id = $3))`,
        [scope.mode, scope.merchantId, scope.projectId],
      );
      return rows.map((r) => ({
        providerId: r.provider_id,
        providerCode: r.code,
        providerName: r.name,
        providerAccountId: r.account_id,
        currencies: r.currencies,
        countries: r.countries,
        methods: r.methods,
        feeFixed: r.fee_fixed,
        feeBps: r.fee_bps,
        latencyMs: r.latency_ms,
      }));
    },

    /** Both decisions in one statement: one round trip and one commit on the payment hot path. */
    async recordDecisions(
      scope: Scope,
      paymentId: string,
      risk: { id: string } & RiskAssessment,
      routing: ({ id: string } & RoutePlan) | undefined,
      at: Date,
    ): Promise<void> {
      await pool.query(
        `WITH r AS (
           INSERT INTO risk_decisions (id, merchant_id, project_id, mode, payment_id, score, outcome, reasons, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9))
         INSERT INTO routing_decisions (id, merchant_id, project_id, mode, payment_id, rule, candidates, created_at)
         SELECT $10, $2, $3, $4, $5, $11, $12, $9 WHERE $10::text IS NOT NULL`,
        [
          risk.id, scope.merchantId, scope.projectId, scope.mode, paymentId, risk.score, risk.outcome,
          JSON.stringify(risk.reasons), at, routing?.id ?? null, routing?.rule ?? null,
          JSON.stringify(routing?.candidates.map((c) => c.providerAccountId) ?? []),
        ],
      );
    },
  };
}

export type RoutingRiskStore = ReturnType<typeof createStore>;
