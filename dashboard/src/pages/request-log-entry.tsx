import { api } from '../api/client';
import type { RequestLogView } from '../api/types';
import { Link } from '../components/link';
import { ErrorMessage, Loading } from '../components/messages';
import { useLoad } from '../components/use-load';
import { dateTime } from '../format';
import { useSignedIn } from '../session';

// One call of the request log and, when it failed, why: the error it answered (code, message and
// the field it named), kept redacted as long as the call is kept (docs/dashboard.md, "Request log").

export function RequestLogEntryPage({ id }: { id: string }) {
  const session = useSignedIn();
  const entry = useLoad(() => api.get<RequestLogView>(`/request-log/${encodeURIComponent(id)}`), [id, session.mode]);
  if (entry.error) return <ErrorMessage error={entry.error} />;
  if (!entry.data) return <Loading what="the request" />;
  const r = entry.data;
  return (
    <>
      <p><Link to="/developers/request-log">← Request log</Link></p>
      <h1 class="mono">{r.method} {r.path}</h1>
      <dl>
        <dt>Status</dt><dd><span class={`badge ${statusTone(r.status)}`}>{r.status}</span></dd>
        <dt>Time</dt><dd>{dateTime(r.created_at)}</dd>
        <dt>Duration</dt><dd>{r.duration_ms} ms</dd>
        <dt>Request id</dt><dd class="mono">{r.request_id}</dd>
        <dt>Key</dt><dd class="mono">{r.api_key_prefix}…</dd>
      </dl>
      {r.error && (
        <section aria-labelledby="request-error">
          <h2 id="request-error">Error answered</h2>
          <dl>
            <dt>Code</dt><dd class="mono">{r.error.code}</dd>
            <dt>Message</dt><dd>{r.error.message}</dd>
            {r.error.param && <><dt>Field</dt><dd class="mono">{r.error.param}</dd></>}
          </dl>
          <p class="muted small">Secrets and card numbers are withheld from what the log keeps.</p>
        </section>
      )}
    </>
  );
}

/** A status's colour, repeating its class of answer (the number is always shown). */
export function statusTone(status: number): string {
  return status < 400 ? 'good' : status < 500 ? 'info' : 'bad';
}
