import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { DeliveryAttempt, DeliveryDetail } from '../api/types';
import { Link } from '../components/link';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { dateTime } from '../format';
import { canWrite, useSignedIn } from '../session';

// One delivery: the event sent, when its next automatic attempt is due (while it has one), every
// attempt's request headers, status, response body and error, and a resend (same event id and
// payload, also for exhausted deliveries and disabled endpoints).

export function DeliveryPage({ id }: { id: string }) {
  const session = useSignedIn();
  const path = `/webhook-deliveries/${encodeURIComponent(id)}`;
  const detail = useLoad(() => api.get<DeliveryDetail>(path), [id]);
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const resend = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await api.post<{ attempt: DeliveryAttempt | null }>(`${path}/resend`);
      setNotice(res.attempt ? `Resent: attempt ${res.attempt.attempt_number} answered ${res.attempt.response_status ?? res.attempt.error}.` : 'Resent.');
      detail.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  if (detail.error) return <ErrorMessage error={detail.error} />;
  if (!detail.data) return <Loading what="the delivery" />;
  const d = detail.data;
  return (
    <>
      <p><Link to="/developers/deliveries">← Deliveries</Link></p>
      <h1>{d.event_type} <StatusBadge status={d.status} /></h1>
      <p class="mono muted">{d.id} · event {d.event_id}</p>
      <p>{nextStep(d)}</p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={error} />
      {canWrite(session) && <button type="button" onClick={resend} disabled={busy}>Resend</button>}
      <h2>Attempts</h2>
      <ol class="attempts">
        {d.attempts.map((a) => (
          <li key={a.id} class="card">
            <h3>
              Attempt {a.attempt_number}{a.manual ? ' (resent)' : ''}: {a.response_status ?? 'no response'}
            </h3>
            <p class="muted">{dateTime(a.started_at)} · {a.duration_ms} ms</p>
            {a.error && <p class="error">{a.error}</p>}
            <details>
              <summary>Request headers</summary>
              <dl class="mono small">
                {Object.entries(a.request_headers).map(([name, value]) => (
                  <Fragment key={name}><dt>{name}</dt><dd>{value}</dd></Fragment>
                ))}
              </dl>
            </details>
            <details>
              <summary>Response body</summary>
              <pre>{a.response_body ?? '(empty)'}</pre>
            </details>
          </li>
        ))}
      </ol>
      <details>
        <summary>Event payload</summary>
        <pre>{JSON.stringify(d.event, null, 2)}</pre>
      </details>
    </>
  );
}

/** What happens next without anyone acting: the server names a next attempt only while one is due. */
function nextStep(d: DeliveryDetail): string {
  if (d.next_attempt_at) return `Next automatic attempt: ${dateTime(d.next_attempt_at)}.`;
  if (d.status === 'succeeded') return 'Delivered.';
  if (d.status === 'delivering') return 'Being delivered now.';
  return 'No further automatic attempt: resend it when the endpoint is fixed.';
}
