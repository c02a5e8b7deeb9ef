import { label } from '../format';

// A status as text with a colour that repeats it (never colour alone).

const TONE: Record<string, string> = {
  successful: 'good', succeeded: 'good', captured: 'good', enabled: 'good', approved: 'good', active: 'good', delivered: 'good', settled: 'good', won: 'good',
  failed: 'bad', cancelled: 'bad', disabled: 'bad', exhausted: 'bad', rejected: 'bad', revoked: 'bad', lost: 'bad', expired: 'bad', needs_response: 'warn',
  refunded: 'info', partially_refunded: 'info', authorized: 'info', under_review: 'info',
};

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge ${TONE[status] ?? 'neutral'}`}>{label(status)}</span>;
}
