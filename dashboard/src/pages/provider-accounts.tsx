import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { ConnectableProvider, ProviderAccount, ProviderAccountCheck } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { can, isOwner, useSignedIn } from '../session';
import { ProviderConnectForm } from './provider-connect-form';
import { TableWrap } from '../components/table-wrap';

// The project's accounts at licensed providers in the current mode: what each routes (methods,
// currencies, countries) at which fee, and its status. Owners connect, disable and enable; owners and
// developers test; nobody ever sees a credential back.

const all = (values: string[]) => (values.length === 0 ? 'All' : values.join(', '));
// The fixed part is in minor units of each payment's currency, so it has no currency of its own to show.
const fee = (a: ProviderAccount) => `${(a.fee_bps / 100).toFixed(2)}% + ${a.fee_fixed} minor units`;

export function ProviderAccountsPage() {
  const session = useSignedIn();
  const accounts = useLoad(() => api.get<{ data: ProviderAccount[] }>('/provider-accounts'), [session.mode]);
  const providers = useLoad(() => api.get<{ data: ConnectableProvider[] }>('/provider-accounts/providers'), []);
  const [notice, setNotice] = useState<string>();
  const [checks, setChecks] = useState<Record<string, ProviderAccountCheck | { error: unknown }>>({});
  const [changing, setChanging] = useState<{ account: ProviderAccount; action: 'disable' | 'enable' }>();
  const owner = isOwner(session);

  const test = async (a: ProviderAccount) => {
    setChecks((c) => ({ ...c, [a.id]: { ok: false, reason: 'pending', provider_error_code: null, message: 'Asking the provider…' } }));
    try {
      const check = await api.post<ProviderAccountCheck>(`/provider-accounts/${encodeURIComponent(a.id)}/test`);
      setChecks((c) => ({ ...c, [a.id]: check }));
    } catch (error) {
      setChecks((c) => ({ ...c, [a.id]: { error } }));
    }
  };

  return (
    <>
      <h1>Provider accounts</h1>
      <p>
        Your own accounts at payment providers, used by routing in {session.mode} mode. Credentials are stored encrypted and
        are never shown again.
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={accounts.error} />
      {accounts.loading && !accounts.data && <Loading what="provider accounts" />}
      {accounts.data && accounts.data.data.length === 0 && <p class="muted">No {session.mode} provider account yet.</p>}
      {accounts.data && accounts.data.data.length > 0 && (
        <TableWrap label="Provider accounts table">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th><th scope="col">Provider</th><th scope="col">Methods</th><th scope="col">Currencies</th>
                <th scope="col">Countries</th><th scope="col">Fee</th><th scope="col">Status</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.data.map((a) => (
                <tr key={a.id}>
                  <td>{a.name}<br /><small class="mono muted">{a.id}</small></td>
                  <td>{a.provider.name || a.provider.code}</td>
                  <td>{all(a.payment_method_types)}</td>
                  <td>{all(a.currencies)}</td>
                  <td>{all(a.countries)}</td>
                  <td>{fee(a)}</td>
                  <td><StatusBadge status={a.status} /></td>
                  <td>
                    {can(session, 'develop') && (
                      <button type="button" class="secondary small" onClick={() => test(a)} aria-label={`Test ${a.name}`}>Test</button>
                    )}
                    {owner && (
                      <button type="button" class={`small${a.status === 'active' ? ' danger' : ''}`}
                        onClick={() => setChanging({ account: a, action: a.status === 'active' ? 'disable' : 'enable' })}
                        aria-label={`${a.status === 'active' ? 'Disable' : 'Enable'} ${a.name}`}>
                        {a.status === 'active' ? 'Disable' : 'Enable'}
                      </button>
                    )}
                    <CheckResult check={checks[a.id]} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {owner && providers.data && (
        <ProviderConnectForm providers={providers.data.data} mode={session.mode}
          onConnected={(name) => { setNotice(`${name} connected. Test it to check the credentials.`); accounts.reload(); }} />
      )}
      <ErrorMessage error={providers.error} />
      {changing && (
        <ConfirmDialog title={`${changing.action === 'disable' ? 'Disable' : 'Enable'} “${changing.account.name}”?`}
          confirmLabel={changing.action === 'disable' ? 'Disable account' : 'Enable account'} danger={changing.action === 'disable'}
          onClose={() => setChanging(undefined)}
          onConfirm={async () => {
            await api.post(`/provider-accounts/${encodeURIComponent(changing.account.id)}/${changing.action}`);
            setNotice(`${changing.account.name} ${changing.action}d.`);
            accounts.reload();
          }}>
          <p>
            {changing.action === 'disable'
              ? 'Routing stops sending new payments to this account; payments already made with it can still be refunded.'
              : 'Routing may send new payments to this account again.'}
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

function CheckResult({ check }: { check: ProviderAccountCheck | { error: unknown } | undefined }) {
  if (!check) return null;
  if ('error' in check) return <ErrorMessage error={check.error} />;
  if (check.ok) return <p class="notice" role="status">Credentials OK</p>;
  if (check.reason === 'pending') return <p class="muted" role="status">{check.message}</p>;
  const code = check.provider_error_code ? ` (${check.provider_error_code})` : '';
  return <p class="error" role="alert">{check.message}{code}</p>;
}
