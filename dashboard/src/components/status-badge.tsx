import { label } from '../format';

// A status as text with a colour that repeats it (never colour alone).

const TONE: Record<string, string> = {
  successful: 'good', succeeded: 'good', captured: 'good', enabled: 'good', approved: 'good', active: 'good', delivered: 'good', settled: 'good',
  failed: 'bad', cancelled: 'bad', disabled: 'bad', exhausted: 'bad', rejected: 'bad', revoked: 'bad',
  refunded: 'info', partially_refunded: 'info', authorized: 'info',
};

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge ${TONE[status] ?? 'neutral'}`}>{label(status)}</span>;
}
