import { api } from '../api/client';
import { EVENT_TYPES } from '../api/contract';
import type { Delivery, Page, WebhookEndpoint } from '../api/types';
import { Link } from '../components/link';
import { ListFilters, ListView, SelectFilter } from '../components/list-page';
import { useListQuery } from '../components/list-query';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { dateTime } from '../format';
import { useSignedIn } from '../session';

// Deliveries of events to the endpoints, filtered by endpoint, event type and status.

const STATUSES = ['pending', 'delivering', 'succeeded', 'failed', 'exhausted'];
const FILTERS = ['endpoint_id', 'event_type', 'status'] as const;

export function DeliveriesPage() {
  const session = useSignedIn();
  const { filters, cursors, key, apply, page } = useListQuery(FILTERS);
  const endpoints = useLoad(() => api.get<{ data: WebhookEndpoint[] }>('/webhook-endpoints'), [session.mode]);
  const list = useLoad(
    () => api.get<Page<Delivery>>('/webhook-deliveries', { ...filters, limit: 25, cursor: cursors.at(-1) }),
    [key, session.mode],
  );
  const urlOf = (id: string) => endpoints.data?.data.find((e) => e.id === id)?.url ?? id;

  return (
    <>
      <h1>Deliveries</h1>
      <ListFilters label="Filter deliveries" current={key} onSubmit={apply}>
        <SelectFilter name="endpoint_id" label="Endpoint" value={filters.endpoint_id}
          options={endpoints.data?.data.map((e) => e.id) ?? []} text={urlOf} />
        <SelectFilter name="event_type" label="Event type" value={filters.event_type} options={EVENT_TYPES} text={(t) => t} />
        <SelectFilter name="status" label="Status" value={filters.status} options={STATUSES} />
      </ListFilters>
      <ListView
        list={list} what="deliveries" table="Deliveries table" empty="No deliveries match." pages={{ cursors, onPage: page }}
        columns={['Event', 'Endpoint', 'Status', 'Attempts', 'Last response', 'Created']}
        row={(d) => (
          <tr key={d.id}>
            <td>
              <Link to={`/developers/deliveries/${encodeURIComponent(d.id)}`}>{d.event_type}</Link>
              <div class="mono muted small">{d.id}</div>
            </td>
            <td class="mono small">{urlOf(d.endpoint_id)}</td>
            <td><StatusBadge status={d.status} /></td>
            <td>{d.attempt_count}</td>
            <td>{d.last_response_status ?? d.last_error ?? '—'}</td>
            <td>{dateTime(d.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}
