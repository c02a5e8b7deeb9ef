import { api } from '../api/client';
import { DISPUTE_STATUSES } from '../api/contract';
import type { Dispute, DisputeSummary, Page } from '../api/types';
import { Link } from '../components/link';
import { ListFilters, ListView, SelectFilter } from '../components/list-page';
import { useListQuery } from '../components/list-query';
import { ErrorMessage, Loading } from '../components/messages';
import { StatusBadge } from '../components/status-badge';
import { TableWrap } from '../components/table-wrap';
import { useLoad } from '../components/use-load';
import { dateTime, label, money } from '../format';
import { useSignedIn } from '../session';
import { evidenceDaysLeft } from '../../../services/contract/dispute-deadline';

// Disputes, open ones first: those needing a response (soonest deadline first), then those under
// review, then the closed ones newest first with cursor pages. A status filter shows that status alone.

const OPEN = ['needs_response', 'under_review'];
const CLOSED = DISPUTE_STATUSES.filter((s) => !OPEN.includes(s)).join(',');
const OPEN_PAGE = 100;

/** "3 days left", "1 day left", "due today"… from the deadline, or why there is none to meet. */
export function daysLeftText(d: Pick<DisputeSummary, 'status' | 'evidence_due_by'>, now = new Date()): string {
  if (d.status !== 'needs_response') return '—';
  if (!d.evidence_due_by) return 'no deadline given';
  const left = evidenceDaysLeft(new Date(d.evidence_due_by), now);
  if (left <= 0) return 'deadline passed';
  return left === 1 ? '1 day left' : `${left} days left`;
}

/** The open disputes in the order to answer them: needs_response by deadline, then under_review. */
async function loadOpen(): Promise<{ data: Dispute[]; more: boolean }> {
  const [needs, review] = await Promise.all(
    OPEN.map((status) => api.get<Page<Dispute>>('/disputes', { status, limit: OPEN_PAGE })),
  );
  const due = (d: Dispute) => (d.evidence_due_by ? Date.parse(d.evidence_due_by) : Number.MAX_SAFE_INTEGER);
  return {
    data: [...needs.data.sort((a, b) => due(a) - due(b)), ...review.data],
    more: needs.has_more || review.has_more,
  };
}

function DisputeRow({ d }: { d: Dispute }) {
  return (
    <tr key={d.id}>
      <td>
        <Link to={`/disputes/${encodeURIComponent(d.id)}`}>{money(d.amount, d.currency)}</Link>
        <div class="muted mono small">{d.id}</div>
      </td>
      <td><StatusBadge status={d.status} /></td>
      <td>{label(d.reason)}</td>
      <td class="nowrap">{daysLeftText(d)}</td>
      <td><Link to={`/payments/${encodeURIComponent(d.payment_id)}`} class="mono nowrap">{d.payment_id}</Link></td>
      <td>{dateTime(d.created_at)}</td>
    </tr>
  );
}

const COLUMNS = ['Amount', 'Status', 'Reason', 'Evidence due', 'Payment', 'Opened'];

export function DisputesPage() {
  const { filters, cursors, key, apply, page } = useListQuery(['status'] as const);
  const session = useSignedIn();
  const status = filters.status;
  // Test and live disputes are apart: switching the mode reads the lists again.
  const open = useLoad(() => (status ? Promise.resolve(undefined) : loadOpen()), [key, session.mode]);
  const list = useLoad(
    () => api.get<Page<Dispute>>('/disputes', { status: status || CLOSED, limit: 25, cursor: cursors.at(-1) }), [key, session.mode],
  );
  return (
    <>
      <h1>Disputes</h1>
      <p class="muted">A cardholder's bank disputed these payments. Answer those that need a response before their deadline.</p>
      <ListFilters label="Filter disputes" current={key} onSubmit={apply}>
        <SelectFilter name="status" label="Status" value={status} options={DISPUTE_STATUSES} />
      </ListFilters>
      {!status && (
        <section aria-labelledby="open-disputes">
          <h2 id="open-disputes">Open</h2>
          <ErrorMessage error={open.error} />
          {open.loading && !open.data && <Loading what="open disputes" />}
          {open.data && open.data.data.length === 0 && <p class="muted">No open disputes.</p>}
          {open.data && open.data.data.length > 0 && (
            <TableWrap label="Open disputes table">
              <table>
                <thead><tr>{COLUMNS.map((c) => <th key={c} scope="col">{c}</th>)}</tr></thead>
                <tbody>{open.data.data.map((d) => <DisputeRow key={d.id} d={d} />)}</tbody>
              </table>
            </TableWrap>
          )}
          {open.data?.more && <p class="muted">Showing the first {OPEN_PAGE} of each open status; filter by status to see them all.</p>}
        </section>
      )}
      <section aria-labelledby="closed-disputes">
        {!status && <h2 id="closed-disputes">Closed</h2>}
        <ListView
          list={list} what="disputes" table="Disputes table" empty={status ? 'No disputes match.' : 'No closed disputes.'}
          pages={{ cursors, onPage: page }} columns={COLUMNS} row={(d) => <DisputeRow key={d.id} d={d} />}
        />
      </section>
    </>
  );
}
