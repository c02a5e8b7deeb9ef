import { api } from '../api/client';
import { PAYMENT_METHOD_TYPES, PAYMENT_STATUSES } from '../api/contract';
import type { Page, Payment } from '../api/types';
import { ExportLink } from '../components/export-link';
import { DateRangeFields, ListFilters, ListView, SelectFilter, TextFilter } from '../components/list-page';
import { dayEnd, dayStart, useListQuery } from '../components/list-query';
import { Link } from '../components/link';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { dateTime, label, money } from '../format';
import { canOperate, useSignedIn } from '../session';
import { TestPaymentForm } from './test-payment-form';

// Payments with the API's filters (status, method, currency, dates), search and cursor pagination.
// The filters live in the address, so a filtered list can be reloaded and shared; the CSV holds
// every payment they select. In test mode, developers and owners make a test payment here.

const FILTERS = ['status', 'payment_method', 'currency', 'search', 'from', 'to'] as const;

export function PaymentsPage() {
  const session = useSignedIn();
  const { filters, cursors, key, apply, page } = useListQuery(FILTERS);
  const selected = { ...filters, from: dayStart(filters.from), to: dayEnd(filters.to) };
  const list = useLoad(() => api.get<Page<Payment>>('/payments', { ...selected, limit: 25, cursor: cursors.at(-1) }), [key, session.mode]);

  return (
    <>
      <div class="list-head">
        <h1>Payments</h1>
        <ExportLink path="/payments/export.csv" query={selected} what="payments" />
      </div>
      {session.mode === 'test' && canOperate(session) && <TestPaymentForm onCreated={list.reload} />}
      <ListFilters label="Filter payments" current={key} onSubmit={apply}>
        <TextFilter name="search" label="Search" type="search" value={filters.search} placeholder="id, reference, email…" size={14} />
        <SelectFilter name="status" label="Status" value={filters.status} options={PAYMENT_STATUSES} />
        <SelectFilter name="payment_method" label="Method" value={filters.payment_method} options={PAYMENT_METHOD_TYPES} />
        <TextFilter name="currency" label="Currency" value={filters.currency} maxLength={3} size={4} pattern="[A-Za-z]{3}" />
        <DateRangeFields from={filters.from} to={filters.to} />
      </ListFilters>
      <ListView
        list={list} what="payments" table="Payments table" empty="No payments match." pages={{ cursors, onPage: page }}
        columns={['Amount', 'Status', 'Customer', 'Description', 'Method', 'Reference', 'Provider', 'Created']}
        row={(p) => (
          <tr key={p.id}>
            <td>
              <Link to={`/payments/${encodeURIComponent(p.id)}`}>{money(p.amount, p.currency)}</Link>
              <div class="muted mono small">{p.id}</div>
            </td>
            <td><StatusBadge status={p.status} /></td>
            <td class="clip" title={customerText(p)}>{customerText(p)}</td>
            <td class="clip" title={p.description ?? undefined}>{p.description ?? '—'}</td>
            <td>{label(p.payment_method.type)}</td>
            <td>{p.reference ?? '—'}</td>
            <td>{p.route.provider?.name ?? '—'}</td>
            {/* The time may go under the date: with the customer and description the row is full at 1280 px. */}
            <td>{dateTime(p.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

/** Who paid, as the payment names them: name, else email, else the merchant's own customer id. */
function customerText(p: Payment): string {
  const c = p.customer;
  return c?.name || c?.email || c?.external_id || c?.id || '—';
}
