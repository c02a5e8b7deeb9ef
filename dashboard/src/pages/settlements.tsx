import { api } from '../api/client';
import { SETTLEMENT_STATUSES as STATUSES } from '../api/contract';
import type { Settlement } from '../api/types';
import { ExportLink } from '../components/export-link';
import { Link } from '../components/link';
import { ListFilters, ListView, SelectFilter, TextFilter } from '../components/list-page';
import { useListQuery } from '../components/list-query';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { dateTime, money } from '../format';

// Provider-reported settlements with the API's filters (status, provider account); the API pages
// none, so neither does this list. The CSV holds what the filters select.

export function SettlementsPage() {
  const { filters, key, apply } = useListQuery(['status', 'provider_account_id'] as const);
  const list = useLoad(() => api.get<{ data: Settlement[] }>('/settlements', filters), [key]);
  return (
    <>
      <div class="list-head">
        <h1>Settlements</h1>
        <ExportLink path="/settlements/export.csv" query={filters} what="settlements" />
      </div>
      <ListFilters label="Filter settlements" current={key} onSubmit={apply}>
        <SelectFilter name="status" label="Status" value={filters.status} options={STATUSES} />
        <TextFilter name="provider_account_id" label="Provider account" value={filters.provider_account_id} placeholder="pac_…" />
      </ListFilters>
      <ListView
        list={list} what="settlements" table="Settlements table" empty="No settlements match."
        columns={['Net', 'Status', 'Provider', 'Period', 'Transactions', 'Settled']}
        row={(s) => (
          <tr key={s.id}>
            <td>
              <Link to={`/settlements/${encodeURIComponent(s.id)}`}>{money(s.net_amount, s.currency)}</Link>
              <div class="muted mono small">{s.id}</div>
            </td>
            <td><StatusBadge status={s.status} /></td>
            <td>{s.provider_name ?? '—'}</td>
            <td>{dateTime(s.period_start)} – {dateTime(s.period_end)}</td>
            <td>{s.transaction_count}</td>
            <td>{dateTime(s.settled_at)}</td>
          </tr>
        )}
      />
    </>
  );
}
