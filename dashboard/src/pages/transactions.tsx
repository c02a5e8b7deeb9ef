import { api } from '../api/client';
import { TRANSACTION_STATUSES as STATUSES, TRANSACTION_TYPES as TYPES } from '../api/contract';
import type { Page, Transaction } from '../api/types';
import { ExportLink } from '../components/export-link';
import { Link } from '../components/link';
import { DateRangeFields, ListFilters, ListView, SelectFilter, TextFilter } from '../components/list-page';
import { dayEnd, dayStart, useListQuery } from '../components/list-query';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { When } from '../components/when';
import { label, money } from '../format';

// Every money movement, failed ones included, with the contract's filters (type, status, currency,
// provider account, dates) and cursor pages; the CSV holds every movement the filters select.
// A row's ids share one column (what moved, of which payment or payout, the movement's own id), so
// the table fits a 1280 px screen.

const FILTERS = ['type', 'status', 'currency', 'provider_account_id', 'from', 'to'] as const;

export function TransactionsPage() {
  const { filters, cursors, key, apply, page } = useListQuery(FILTERS);
  const selected = { ...filters, from: dayStart(filters.from), to: dayEnd(filters.to) };
  const list = useLoad(() => api.get<Page<Transaction>>('/transactions', { ...selected, limit: 25, cursor: cursors.at(-1) }), [key]);
  return (
    <>
      <div class="list-head">
        <h1>Transactions</h1>
        <ExportLink path="/transactions/export.csv" query={selected} what="transactions" />
      </div>
      <ListFilters label="Filter transactions" current={key} onSubmit={apply}>
        <SelectFilter name="type" label="Type" value={filters.type} options={TYPES} />
        <SelectFilter name="status" label="Status" value={filters.status} options={STATUSES} />
        <TextFilter name="currency" label="Currency" value={filters.currency} maxLength={3} size={4} pattern="[A-Za-z]{3}" />
        <TextFilter name="provider_account_id" label="Provider account" value={filters.provider_account_id} placeholder="pac_…" size={14} />
        <DateRangeFields from={filters.from} to={filters.to} />
      </ListFilters>
      <ListView
        list={list} what="transactions" table="Transactions table" empty="No transactions match." pages={{ cursors, onPage: page }}
        columns={['Amount', 'Fee', 'Net', 'Status', 'Transaction', 'Provider', 'Occurred']}
        row={(t) => (
          <tr key={t.id}>
            <td class="nowrap">{money(t.amount, t.currency)}</td>
            <td class="nowrap">{money(t.fee_amount, t.currency)}</td>
            <td class="nowrap">{money(t.net_amount, t.currency)}</td>
            <td><StatusBadge status={t.status} /></td>
            <td>
              <div>{label(t.type)}</div>
              <div class="mono small">
                {t.payment_id ? <Link to={`/payments/${encodeURIComponent(t.payment_id)}`}>{t.entity_id}</Link>
                  : t.entity_type === 'payout' ? <Link to={`/payouts/${encodeURIComponent(t.entity_id)}`}>{t.entity_id}</Link> : t.entity_id}
              </div>
              <div class="muted mono small">{t.id}</div>
            </td>
            <td>{t.provider_name ?? '—'}</td>
            <td><When iso={t.occurred_at} /></td>
          </tr>
        )}
      />
    </>
  );
}
