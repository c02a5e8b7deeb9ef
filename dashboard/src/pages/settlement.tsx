import { api } from '../api/client';
import type { Settlement } from '../api/types';
import { Link } from '../components/link';
import { ErrorMessage, Loading } from '../components/messages';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { dateTime, label, money } from '../format';
import { TableWrap } from '../components/table-wrap';

// One settlement: its totals as the provider reported them and each item it settled.

interface Item {
  transaction_id: string;
  type: string;
  entity_id: string;
  payment_id: string | null;
  amount: number;
  fee_amount: number;
  net_amount: number;
  provider_reference: string | null;
  occurred_at: string | null;
}

export function SettlementPage({ id }: { id: string }) {
  const found = useLoad(() => api.get<Settlement>(`/settlements/${encodeURIComponent(id)}`), [id]);
  if (found.error) return <ErrorMessage error={found.error} />;
  if (!found.data) return <Loading what="the settlement" />;
  const s = found.data;
  const items = (s.items ?? []) as unknown as Item[];
  return (
    <>
      <p><Link to="/settlements">← Settlements</Link></p>
      <h1>{money(s.net_amount, s.currency)} <StatusBadge status={s.status} /></h1>
      <p class="mono muted">{s.id}</p>
      <dl>
        <dt>Provider</dt><dd>{s.provider_name ?? '—'}</dd>
        <dt>Entity</dt><dd>{s.settlement_entity ?? '—'}</dd>
        <dt>Reference</dt><dd class="mono">{s.settlement_reference ?? '—'}</dd>
        <dt>Gross</dt><dd>{money(s.gross_amount, s.currency)}</dd>
        <dt>Fees</dt><dd>{money(s.fee_amount, s.currency)}</dd>
        <dt>Period</dt><dd>{dateTime(s.period_start)} – {dateTime(s.period_end)}</dd>
        <dt>Settled</dt><dd>{dateTime(s.settled_at)}</dd>
      </dl>
      <h2>Items ({items.length})</h2>
      <TableWrap label="Settlement items table">
        <table>
          <thead>
            <tr><th scope="col">Type</th><th scope="col">Of</th><th scope="col">Amount</th><th scope="col">Fee</th><th scope="col">Net</th><th scope="col">Occurred</th></tr>
          </thead>
          <tbody>
            {items.map((i) => (
              <tr key={i.transaction_id}>
                <td>{label(i.type)}</td>
                <td class="mono small">
                  {i.payment_id ? <Link to={`/payments/${encodeURIComponent(i.payment_id)}`}>{i.entity_id}</Link> : i.entity_id}
                </td>
                <td>{money(i.amount, s.currency)}</td>
                <td>{money(i.fee_amount, s.currency)}</td>
                <td>{money(i.net_amount, s.currency)}</td>
                <td>{dateTime(i.occurred_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}
