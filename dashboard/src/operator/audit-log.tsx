import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { ListFilters, ListView, OlderNewest, TextFilter } from '../components/list-page';
import { useLoad } from '../components/use-load';
import { When } from '../components/when';
import type { AuditEntryView, CursorPage } from './types';

// The audit log, newest first: who (a member's email, or the operator) did what to which key,
// endpoint, allow-list or merchant, and from which address (the client's, trusted proxies walked).

interface Filter {
  merchant_id?: string;
  action?: string;
  before?: string;
}

export function AuditLogPage() {
  const [filter, setFilter] = useState<Filter>({});
  const current = JSON.stringify(filter);
  const log = useLoad(() => api.get<CursorPage<AuditEntryView>>('/operator/audit-log', { ...filter }), [current]);
  const apply = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    setFilter({ merchant_id: String(data.get('merchant_id') ?? '').trim() || undefined, action: String(data.get('action') ?? '').trim() || undefined });
  };
  return (
    <>
      <h1>Audit log</h1>
      <ListFilters label="Filter the audit log" current={current} onSubmit={apply} submit={{ text: 'Filter', class: 'secondary' }}>
        <TextFilter id="audit-merchant" name="merchant_id" label="Merchant id" value={filter.merchant_id ?? ''} placeholder="mer_…" />
        <TextFilter id="audit-action" name="action" label="Action" value={filter.action ?? ''} placeholder="api_key.created" />
      </ListFilters>
      <ListView
        list={log} what="the audit log" table="Audit log table"
        columns={['When', 'Who', 'Action', 'Target', 'Address']}
        row={(e) => (
          <tr key={e.id}>
            <td><When iso={e.created_at} /></td>
            <td>{e.actor_email ?? e.actor}</td>
            <td class="mono small">{e.action}</td>
            <td>
              <div class="mono small">{e.target_id ?? e.project_id ?? '—'}</div>
              {e.merchant_id && e.merchant_id !== e.target_id && <div class="muted small">of <span class="mono">{e.merchant_id}</span></div>}
            </td>
            <td class="mono small">{e.client_address ?? '—'}</td>
          </tr>
        )}
      />
      <OlderNewest before={filter.before} next={log.data?.next_cursor} onMove={(before) => setFilter({ ...filter, before })} />
    </>
  );
}
