import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { VAULTS } from '../api/contract';
import type { PaymentMethodCredential } from '../api/types';
import { Field } from '../components/field';
import { ErrorMessage } from '../components/messages';
import { useSubmit } from '../components/use-submit';

// Adds a credential to a stored method (POST /v1/payment-methods/{id}/credentials, as the
// session): another provider's token for the same card, or the card's vault reference. The token
// is sent once and never shown again; the API's checks (a provider for a token, one vault
// reference per method) answer in the form.

export function CredentialForm({ methodId, onAdded }: { methodId: string; onAdded(c: PaymentMethodCredential): void }) {
  const [kind, setKind] = useState<'provider_token' | 'vault_token'>('provider_token');
  const { busy, error, onSubmit } = useSubmit(async (v, form) => {
    const body = kind === 'provider_token'
      ? { type: kind, token: v.token, provider_code: v.provider_code, ...(v.provider_account_id && { provider_account_id: v.provider_account_id }) }
      : { type: kind, token: v.token, vault: v.vault };
    const added = await api.post<PaymentMethodCredential>(`/payment-methods/${encodeURIComponent(methodId)}/credentials`, body);
    form.reset();
    setKind('provider_token');
    onAdded(added);
  });
  return (
    <form class="inline-form" onSubmit={onSubmit} aria-label="Add a credential">
      <Field id="credential-kind" label="Kind">
        <select id="credential-kind" name="type" value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as typeof kind)}>
          <option value="provider_token">Provider token</option>
          <option value="vault_token">Vault reference</option>
        </select>
      </Field>
      <Field id="credential-token" label="Token">
        <input id="credential-token" name="token" required autocomplete="off" spellcheck={false} />
      </Field>
      {kind === 'provider_token' ? (
        <>
          <Field id="credential-provider" label="Provider code">
            <input id="credential-provider" name="provider_code" required placeholder="adyen" autocomplete="off" />
          </Field>
          <Field id="credential-account" label="Account (if the token is bound to one)">
            <input id="credential-account" name="provider_account_id" placeholder="pac_…" autocomplete="off" />
          </Field>
        </>
      ) : (
        <Field id="credential-vault" label="Vault">
          <select id="credential-vault" name="vault">{VAULTS.map((v) => <option key={v} value={v}>{v}</option>)}</select>
        </Field>
      )}
      <button type="submit" class="secondary" disabled={busy}>Add credential</button>
      <ErrorMessage error={error} />
    </form>
  );
}
