import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { ApiKey } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { ErrorMessage, Loading } from '../components/messages';
import { SecretOnce } from '../components/secret-once';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { useSubmit } from '../components/use-submit';
import { dateTime } from '../format';
import { canWrite, useSignedIn } from '../session';
import { TableWrap } from '../components/table-wrap';

// API keys of the project in the current mode: create with a name (the secret shown once),
// revoke with a confirmation (immediate and irreversible), and when each was last used.

export function ApiKeysPage() {
  const session = useSignedIn();
  const keys = useLoad(() => api.get<{ data: ApiKey[] }>('/keys'), [session.mode]);
  const [created, setCreated] = useState<{ name: string; secret: string }>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const { busy, error, onSubmit } = useSubmit(async (v, form) => {
    const key = await api.post<ApiKey & { secret: string }>('/keys', { name: v.name });
    setCreated({ name: key.name, secret: key.secret });
    form.reset();
    keys.reload();
  });

  return (
    <>
      <h1>API keys</h1>
      <p>
        {session.mode === 'test' ? 'Test keys reach the demo providers only.' : 'Live keys move real money.'} A key sends
        requests to <code>/v1</code> as <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
      {created && <SecretOnce label={`Secret of “${created.name}”`} secret={created.secret} onDone={() => setCreated(undefined)} />}
      {canWrite(session) && !created && (
        <form class="inline-form" onSubmit={onSubmit} aria-label="Create an API key">
          <Field id="key-name" label="Key name">
            <input id="key-name" name="name" required maxLength={100} placeholder="e.g. checkout server" />
          </Field>
          <button type="submit" disabled={busy}>Create {session.mode} key</button>
          <ErrorMessage error={error} />
        </form>
      )}
      <ErrorMessage error={keys.error} />
      {keys.loading && !keys.data && <Loading what="keys" />}
      {keys.data && (
        <TableWrap label="API keys table">
          <table>
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr>
            </thead>
            <tbody>
              {keys.data.data.map((k) => {
                const revoked = Boolean(k.revoked_at) || k.status === 'revoked';
                return (
                  <tr key={k.id}>
                    <td>{k.name}</td>
                    <td class="mono">{k.display_prefix ?? k.prefix ?? k.id}…</td>
                    <td><StatusBadge status={revoked ? 'revoked' : 'active'} /></td>
                    <td>{dateTime(k.created_at)}</td>
                    <td>{k.last_used_at ? dateTime(k.last_used_at) : 'Never'}</td>
                    <td>
                      {canWrite(session) && !revoked && (
                        <button type="button" class="danger small" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`}>Revoke</button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      )}
      {revoking && (
        <ConfirmDialog title={`Revoke “${revoking.name}”?`} confirmLabel="Revoke key" danger onClose={() => setRevoking(undefined)}
          onConfirm={async () => { await api.post(`/keys/${encodeURIComponent(revoking.id)}/revoke`); keys.reload(); }}>
          <p>Requests with this key are refused from now on. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
