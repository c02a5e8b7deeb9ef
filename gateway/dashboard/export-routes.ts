import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OPERATIONS, type OperationId } from '../../services/contract/operations.js';
import { MAX_PAGE_LIMIT } from '../../services/contract/index.js';
import { apiHandlers } from '../api/scope.js';
import { sessionIdentity } from './api-mirror.js';
import { sessionOf, type DashboardDeps } from './context.js';
import { toCsv, type CsvColumn } from './csv.js';

// CSV exports of what a list's filters select, for the session's scope and mode:
//   GET /dashboard/api/{payments,payouts,transactions,settlements,balances}/export.csv?<the list's filters>
// Rows come from the /v1 list handlers themselves (the mirrored lists'), following the cursor up to
// EXPORT_CAP rows; a longer selection is cut there and says so in X-Export-Truncated. Built on the
// server so the escaping (csv.ts) has one home and a plain link downloads the file.

export const EXPORT_CAP = 10_000;

type Row = Record<string, any>;
const col = (header: string, value: (r: Row) => unknown): CsvColumn<Row> => ({
  header, value: (r) => (value(r) ?? null) as ReturnType<CsvColumn<Row>['value']>,
});
const field = (name: string) => col(name, (r) => r[name]);

const EXPORTS: { path: string; operation: OperationId; paged: boolean; columns: CsvColumn<Row>[] }[] = [
  {
    path: '/payments/export.csv', operation: 'listPayments', paged: true,
    columns: [
      field('id'), field('status'), field('amount'), field('currency'), field('captured_amount'), field('refunded_amount'),
      col('fee_amount', (r) => r.fee?.amount), col('payment_method', (r) => r.payment_method?.type),
      col('provider', (r) => r.route?.provider?.name), field('reference'), field('description'),
      col('customer_email', (r) => r.customer?.email), col('customer_name', (r) => r.customer?.name), field('country'),
      col('failure_code', (r) => r.failure?.code), col('decline_reason', (r) => r.failure?.decline_reason), field('created_at'),
    ],
  },
  {
    path: '/payouts/export.csv', operation: 'listPayouts', paged: true,
    columns: [
      field('id'), field('status'), field('amount'), field('currency'),
      col('destination_type', (r) => r.destination?.type), col('destination', (r) => r.destination?.display),
      col('provider', (r) => r.route?.provider?.name), col('fee_amount', (r) => r.fee?.amount),
      col('failure_code', (r) => r.failure?.code), field('created_at'),
    ],
  },
  {
    path: '/transactions/export.csv', operation: 'listTransactions', paged: true,
    columns: ['id', 'type', 'status', 'entity_type', 'entity_id', 'payment_id', 'amount', 'currency', 'fee_amount',
      'net_amount', 'provider_name', 'provider_reference', 'payment_method', 'country', 'failure_code',
      'settlement_id', 'occurred_at'].map(field),
  },
  {
    path: '/settlements/export.csv', operation: 'listSettlements', paged: false,
    columns: ['id', 'status', 'provider_name', 'settlement_entity', 'settlement_reference', 'currency', 'gross_amount',
      'fee_amount', 'net_amount', 'transaction_count', 'period_start', 'period_end', 'settled_at'].map(field),
  },
  {
    path: '/balances/export.csv', operation: 'getBalances', paged: false,
    columns: ['currency', 'processed_gross', 'fees', 'processed_net', 'settled_by_providers',
      'awaiting_provider_settlement', 'payouts_sent', 'note'].map(field),
  },
];

export function exportRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const handlers = apiHandlers(deps.clients);
  for (const spec of EXPORTS) {
    const op = OPERATIONS.find((o) => o.id === spec.operation)!;
    const handler = handlers[spec.operation]!;
    scope.get(spec.path, {
      config: { dashboard: { permission: 'view' } },
      schema: { ...(op.query && { querystring: op.query }) },
    }, async (request: FastifyRequest, reply: FastifyReply) => {
      const identity = sessionIdentity(sessionOf(request));
      const filters = { ...(request.query as Row), cursor: undefined, limit: MAX_PAGE_LIMIT };
      const rows: Row[] = [];
      let truncated = false;
      for (let cursor: string | undefined; ;) {
        const answer = (await handler({ query: { ...filters, cursor }, params: {} } as unknown as FastifyRequest, reply, identity)) as {
          data: Row[]; has_more?: boolean; next_cursor?: string | null;
        };
        rows.push(...answer.data);
        if (rows.length >= EXPORT_CAP) {
          truncated = rows.length > EXPORT_CAP || answer.has_more === true;
          rows.length = Math.min(rows.length, EXPORT_CAP);
          break;
        }
        if (!spec.paged || !answer.has_more || !answer.next_cursor) break;
        cursor = answer.next_cursor;
      }
      const name = `${spec.path.split('/')[1]}-${sessionOf(request).mode}.csv`;
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('x-export-truncated', String(truncated))
        .send(toCsv(spec.columns, rows));
    });
  }
}
