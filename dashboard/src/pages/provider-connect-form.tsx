import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { ConnectableProvider } from '../api/types';
import { Field } from '../components/field';
import { ErrorMessage } from '../components/messages';
import { useSubmit } from '../components/use-submit';
import { label } from '../format';

// Connecting an account at a provider: the fields its connector reads, as password inputs that the
// browser neither fills nor remembers. The values go from the form to the request and nowhere else:
// no state holds them, and the form is cleared once the account is connected.

const NOT_SECRET = new Set(['api_base_url', 'merchant_account', 'live_url_prefix', 'basic_auth_user']);
const list = (text: string | undefined) => (text ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');

export function ProviderConnectForm(props: { providers: ConnectableProvider[]; mode: string; onConnected(name: string): void }) {
  const [code, setCode] = useState(props.providers[0]?.provider ?? '');
  const spec = props.providers.find((p) => p.provider === code);
  const { busy, error, onSubmit } = useSubmit(async (v, form) => {
    const fields = spec ? [...spec.required, ...spec.optional] : [];
    const credentials = Object.fromEntries(fields.filter((f) => v[`cred-${f}`]).map((f) => [f, v[`cred-${f}`]]));
    const feePercent = v.fee_percent ? Math.round(Number(v.fee_percent) * 100) : undefined;
    await api.post('/provider-accounts', {
      provider: code, name: v.name, credentials, payment_method_types: list(v.methods),
      currencies: list(v.currencies), countries: list(v.countries),
      ...(feePercent !== undefined && { fee_bps: feePercent }), ...(v.fee_fixed && { fee_fixed: Number(v.fee_fixed) }),
    });
    form.reset();
    props.onConnected(v.name);
  });

  return (
    <form onSubmit={onSubmit} aria-label="Connect a provider account" autoComplete="off">
      <h2>Connect a {props.mode} account</h2>
      <Field id="provider" label="Provider">
        <select id="provider" name="provider" value={code} onChange={(e) => setCode((e.currentTarget as HTMLSelectElement).value)}>
          {props.providers.map((p) => <option key={p.provider} value={p.provider}>{label(p.provider)}</option>)}
        </select>
      </Field>
      <Field id="account-name" label="Account name">
        <input id="account-name" name="name" required maxLength={100} placeholder="e.g. Stripe EU" />
      </Field>
      {spec && (
        <fieldset>
          <legend>Credentials (stored encrypted, never shown again)</legend>
          {[...spec.required, ...spec.optional].map((f) => (
            <Field key={`${code}-${f}`} id={`cred-${f}`} label={`${f}${spec.required.includes(f) ? '' : ' (optional)'}`}>
              {NOT_SECRET.has(f)
                ? <input id={`cred-${f}`} name={`cred-${f}`} required={spec.required.includes(f)} class="mono" type="text"
                    autoComplete="off" spellcheck={false} maxLength={4096} />
                : <input id={`cred-${f}`} name={`cred-${f}`} required={spec.required.includes(f)} class="mono" type="password"
                    autoComplete="off" maxLength={4096} />}
            </Field>
          ))}
        </fieldset>
      )}
      <div class="inline-form">
        <Field id="methods" label="Methods" hint="Comma-separated, e.g. card">
          <input id="methods" name="methods" aria-describedby="methods-hint" />
        </Field>
        <Field id="currencies" label="Currencies" hint="e.g. EUR, USD; empty for all">
          <input id="currencies" name="currencies" aria-describedby="currencies-hint" />
        </Field>
        <Field id="countries" label="Countries" hint="e.g. DE, FR; empty for all">
          <input id="countries" name="countries" aria-describedby="countries-hint" />
        </Field>
        <Field id="fee-percent" label="Fee %" hint="e.g. 1.4">
          <input id="fee-percent" name="fee_percent" inputMode="decimal" pattern="[0-9]+(\.[0-9]{1,2})?" aria-describedby="fee-percent-hint" />
        </Field>
        <Field id="fee-fixed" label="Fixed fee" hint="Minor units, e.g. 25">
          <input id="fee-fixed" name="fee_fixed" inputMode="numeric" pattern="[0-9]+" aria-describedby="fee-fixed-hint" />
        </Field>
      </div>
      <button type="submit" disabled={busy || !spec}>Connect account</button>
      <ErrorMessage error={error} />
    </form>
  );
}
