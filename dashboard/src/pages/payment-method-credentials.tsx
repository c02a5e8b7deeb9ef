import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { PaymentMethodCredential } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage, Loading } from '../components/messages';
import { TableWrap } from '../components/table-wrap';
import { useLoad } from '../components/use-load';
import { dateTime } from '../format';
import { canOperate, useSignedIn } from '../session';
import { CredentialForm } from './credential-form';

// The stored payment method a payment was made with, and where its card may be used: each
// provider's token and its vault reference. Tokens are never shown: the API never
// returns them. Adding one sends its token once; removing one is refused for the method's last
// credential (the API's 409, shown).

const path = (methodId: string) => `/payment-methods/${encodeURIComponent(methodId)}/credentials`;

function usableAt(c: PaymentMethodCredential): string {
  if (c.type === 'vault_token') return `${c.vault ?? 'vault'} vault (forwarded to other providers)`;
  return c.provider_account_id ? `${c.provider_code} (account ${c.provider_account_id})` : c.provider_code ?? '—';
}

export function PaymentMethodCredentials({ methodId }: { methodId: string }) {
  const session = useSignedIn();
  const credentials = useLoad(() => api.get<{ data: PaymentMethodCredential[] }>(path(methodId)), [methodId]);
  const [removing, setRemoving] = useState<PaymentMethodCredential>();
  const [done, setDone] = useState<string>();
  return (
    <section aria-labelledby="payment-method">
      <h2 id="payment-method">Payment method</h2>
      <p class="mono muted">{methodId}</p>
      {done && <p class="notice" role="status">{done}</p>}
      {credentials.error ? <ErrorMessage error={credentials.error} />
        : !credentials.data ? <Loading what="its credentials" />
        : (
          <TableWrap label="Credentials table">
            <table>
              <thead>
                <tr><th scope="col">Usable at</th><th scope="col">Kind</th><th scope="col">Added</th><th scope="col">Credential</th>
                  {canOperate(session) && <th scope="col"><span class="visually-hidden">Actions</span></th>}</tr>
              </thead>
              <tbody>
                {credentials.data.data.map((c) => (
                  <tr key={c.id}>
                    <td>{usableAt(c)}</td>
                    <td>{c.type === 'vault_token' ? 'Vault reference' : 'Provider token'}</td>
                    <td>{dateTime(c.created_at)}</td>
                    <td class="mono">{c.id}</td>
                    {canOperate(session) && (
                      <td><button type="button" class="secondary" onClick={() => setRemoving(c)}>Remove</button></td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      {canOperate(session) && (
        <CredentialForm methodId={methodId} onAdded={(c) => { setDone(`${c.id} added: usable at ${usableAt(c)}.`); credentials.reload(); }} />
      )}
      {removing && (
        <ConfirmDialog
          title="Remove this credential?"
          confirmLabel="Remove"
          danger
          onConfirm={async () => {
            await api.delete(`${path(methodId)}/${encodeURIComponent(removing.id)}`);
            setDone(`${removing.id} removed.`);
            credentials.reload();
          }}
          onClose={() => setRemoving(undefined)}
        >
          <p>Payments with this method will no longer be sent to {usableAt(removing)}.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
