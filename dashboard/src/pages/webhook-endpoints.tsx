import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { WebhookEndpoint } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { Link } from '../components/link';
import { SecretOnce } from '../components/secret-once';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { canWrite, useSignedIn } from '../session';
import { EndpointHealth, RecoverForm } from './endpoint-health';
import { EndpointForm } from './webhook-endpoint-form';
import { TestEventForm } from './test-event-form';

// Webhook endpoints of the current mode: create (signing secret shown once), edit URL, events and
// description, disable or enable, rotate the secret (the new one shown once), send a test event;
// each card shows the endpoint's health (endpoint-health.tsx) and offers to resend what failed since a time.

const base = (e: WebhookEndpoint) => `/webhook-endpoints/${encodeURIComponent(e.id)}`;

export function WebhookEndpointsPage() {
  const session = useSignedIn();
  const list = useLoad(() => api.get<{ data: WebhookEndpoint[] }>('/webhook-endpoints'), [session.mode]);
  const [secret, setSecret] = useState<{ label: string; secret: string }>();
  const [editing, setEditing] = useState<WebhookEndpoint | 'new'>();
  const [rotating, setRotating] = useState<WebhookEndpoint>();
  const [recovering, setRecovering] = useState<WebhookEndpoint>();
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();
  const write = canWrite(session);

  const act = async (what: () => Promise<string>) => {
    setError(undefined);
    try {
      setNotice(await what());
      list.reload();
    } catch (e) {
      setError(e);
    }
  };
  const toggle = (e: WebhookEndpoint) => act(async () => {
    await api.post(`${base(e)}/${e.status === 'enabled' ? 'disable' : 'enable'}`);
    return `${e.url} ${e.status === 'enabled' ? 'disabled' : 'enabled'}.`;
  });

  return (
    <>
      <h1>Webhook endpoints</h1>
      <p>Events of {session.mode} mode are signed with each endpoint's secret (<code>Svc-Signature</code>).</p>
      {secret && <SecretOnce label={secret.label} secret={secret.secret} onDone={() => setSecret(undefined)} />}
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={error} />
      {write && !editing && <button type="button" onClick={() => setEditing('new')}>Add endpoint</button>}
      {editing && (
        <EndpointForm endpoint={editing === 'new' ? undefined : editing} onCancel={() => setEditing(undefined)}
          onSaved={(saved, newSecret) => {
            setEditing(undefined);
            if (newSecret) setSecret({ label: `Signing secret of ${saved.url}`, secret: newSecret });
            else setNotice(`${saved.url} saved.`);
            list.reload();
          }} />
      )}
      {recovering && (
        <RecoverForm endpoint={recovering} onCancel={() => setRecovering(undefined)}
          onDone={(said) => { setRecovering(undefined); setNotice(said); list.reload(); }} />
      )}
      {write && list.data && list.data.data.length > 0 && <TestEventForm onSent={(said) => { setNotice(said); list.reload(); }} />}
      <ErrorMessage error={list.error} />
      {list.loading && !list.data && <Loading what="endpoints" />}
      {list.data?.data.length === 0 && <p class="muted">No endpoints yet.</p>}
      <ul class="cards">
        {list.data?.data.map((e) => (
          <li key={e.id} class="card">
            <h2 class="url mono">{e.url}</h2>
            <p><StatusBadge status={e.status} /> <span class="mono muted">{e.id}</span></p>
            {e.description && <p>{e.description}</p>}
            <p>Events: <span class="mono">{e.events.join(', ')}</span></p>
            <EndpointHealth endpoint={e} />
            <div class="actions">
              <Link to={`/developers/deliveries?endpoint_id=${encodeURIComponent(e.id)}`}>Deliveries</Link>
              {write && <button type="button" class="secondary small" onClick={() => setEditing(e)}>Edit</button>}
              {write && <button type="button" class="secondary small" onClick={() => toggle(e)}>{e.status === 'enabled' ? 'Disable' : 'Enable'}</button>}
              {write && <button type="button" class="secondary small" onClick={() => setRotating(e)}>Rotate secret</button>}
              {write && e.status === 'enabled' && <button type="button" class="secondary small" onClick={() => setRecovering(e)}>Resend failed…</button>}
            </div>
          </li>
        ))}
      </ul>
      {rotating && (
        <ConfirmDialog title="Rotate the signing secret?" confirmLabel="Rotate secret" danger onClose={() => setRotating(undefined)}
          onConfirm={async () => {
            const res = await api.post<{ secret: string }>(`${base(rotating)}/rotate-secret`);
            setSecret({ label: `New signing secret of ${rotating.url}`, secret: res.secret });
          }}>
          <p>Deliveries to {rotating.url} are signed with a new secret from now on; update your receiver.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
