import { api } from '../api/client';
import type { RequestLogView } from '../api/types';
import { Link } from '../components/link';
import { ListView } from '../components/list-page';
import { useLoad } from '../components/use-load';
import { PathText } from '../components/path-text';
import { When } from '../components/when';
import { useSignedIn } from '../session';
import { statusTone } from './request-log-entry';

// Recent calls to /v1 with this project's keys in the current mode (the newest 100 of the last
// thousand kept): what a developer checks first when an integration misbehaves. The request id is
// the one each answer carries in x-request-id, and opens the call with the error a failed one
// answered; no body or query string is ever kept.

export function RequestLogPage() {
  const session = useSignedIn();
  const log = useLoad(() => api.get<{ data: RequestLogView[] }>('/request-log', { limit: 100 }), [session.mode]);
  return (
    <>
      <div class="list-head">
        <h1>Request log</h1>
        <button type="button" class="secondary" onClick={log.reload}>Refresh</button>
      </div>
      <p class="muted">Recent API calls with your {session.mode} keys, newest first. Open a request id to see the error a failed call answered. Bodies and query strings are never kept.</p>
      <ListView
        list={log} what="the request log" table="Request log table" empty="No API calls yet."
        columns={['Time', 'Method', 'Path', 'Status', 'Request id', 'Key']}
        row={(r) => (
          <tr key={r.request_id}>
            <td><When iso={r.created_at} /></td>
            <td class="mono">{r.method}</td>
            <td class="small"><PathText path={r.path} /></td>
            <td><span class={`badge ${statusTone(r.status)}`} title={r.error?.code}>{r.status}</span></td>
            <td class="mono small nowrap">
              <Link to={`/developers/request-log/${encodeURIComponent(r.request_id)}`}>{r.request_id}</Link>
            </td>
            <td class="mono small">{r.api_key_prefix}…</td>
          </tr>
        )}
      />
    </>
  );
}
