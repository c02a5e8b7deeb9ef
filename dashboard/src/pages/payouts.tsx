import { api } from '../api/client';
import { PAYOUT_STATUSES as STATUSES } from '../api/contract';
import type { Page, Payout } from '../api/types';
import { ExportLink } from '../components/export-link';
import { Link } from '../components/link';
import { ListFilters, ListView, SelectFilter } from '../components/list-page';
import { useListQuery } from '../components/list-query';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { dateTime, label, money } from '../format';

// Payouts with the API's status filter and cursor pages; the CSV holds every payout the filter selects.

export function PayoutsPage() {
  const { filters, cursors, key, apply, page } = useListQuery(['status'] as const);
  const list = useLoad(() => api.get<Page<Payout>>('/payouts', { ...filters, limit: 25, cursor: cursors.at(-1) }), [key]);
  return (
    <>
      <div class="list-head">
        <h1>Payouts</h1>
        <ExportLink path="/payouts/export.csv" query={filters} what="payouts" />
      </div>
      <ListFilters label="Filter payouts" current={key} onSubmit={apply}>
        <SelectFilter name="status" label="Status" value={filters.status} options={STATUSES} />
      </ListFilters>
      <ListView
        list={list} what="payouts" table="Payouts table" empty="No payouts match." pages={{ cursors, onPage: page }}
        columns={['Amount', 'Status', 'Destination', 'Provider', 'Created']}
        row={(p) => (
          <tr key={p.id}>
            <td>
              <Link to={`/payouts/${encodeURIComponent(p.id)}`}>{money(p.amount, p.currency)}</Link>
              <div class="muted mono small">{p.id}</div>
            </td>
            <td><StatusBadge status={p.status} /></td>
            <td>{label(p.destination.type)} {p.destination.display}</td>
            <td>{p.route.provider?.name ?? '—'}</td>
            <td>{dateTime(p.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}
