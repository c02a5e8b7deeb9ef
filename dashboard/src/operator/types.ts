// What the operator console's API answers (gateway/dashboard/operator-*.ts; docs/dashboard.md). The
// rows are the store's own shapes (type-only: nothing of the server reaches the bundle).

export type { AuditEntryView, OperatorMerchantView, VerificationSubmissionView } from '../../../services/contract/dashboard-views';

export interface OperatorSession {
  csrf_token: string;
  idle_timeout_seconds: number;
}

export interface CursorPage<T> {
  data: T[];
  next_cursor: string | null;
}
