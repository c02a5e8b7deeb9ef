import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Pool, Queryable } from '../../platform/index.js';

/** A stored payment method. providerToken leaves this part only towards a provider connector. */
export interface PaymentMethodRecord {
  id: string;
  merchantId: string;
  projectId: string;
  mode: string;
  type: string;
  providerToken: string;
  providerCode: string | null;
  customerId: string | null;
  customer: Record<string, string> | null;
  display: Record<string, string>;
  status: string;
  createdAt: Date;
}

function toRecord(r: Record<string, any>): PaymentMethodRecord {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    projectId: r.project_id,
    mode: r.mode,
    type: r.type,
    providerToken: r.provider_token,
    providerCode: r.provider_code,
    customerId: r.customer_id,
    customer: r.customer,
    display: r.display,
    status: r.status,
    createdAt: r.created_at,
  };
}

/** Postgres access for payment methods. Every read filters on merchant, project and mode. */
export function createPaymentMethodStore(pool: Pool) {
  return {
    async insert(pm: PaymentMethodRecord, db: Queryable = pool): Promise<void> {
      await db.query(
        `INSERT INTO payment_methods (id, merchant_id, project_id, mode, type, provider_token, provider_code,
           customer_id, customer, display, status, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          pm.id, pm.merchantId, pm.projectId, pm.mode, pm.type, pm.providerToken, pm.providerCode, pm.customerId,
          pm.customer && JSON.stringify(pm.customer), JSON.stringify(pm.display), pm.status, pm.createdAt,
        ],
      );
    },

    async get(scope: Scope, id: string, db: Queryable = pool): Promise<PaymentMethodRecord | undefined> {
      const { rows } = await db.query(
        `SELECT * FROM payment_methods WHERE id = $1 AND merchant_id = $2 AND project_id = $3 AND mode = $4`,
        [id, scope.merchantId, scope.projectId, scope.mode],
      );
      return rows[0] && toRecord(rows[0]);
    },
  };
}

export type PaymentMethodStore = ReturnType<typeof createPaymentMethodStore>;
