import { useState } from 'preact/hooks';
import { api, withQuery } from '../api/client';
import { DEMO_PROVIDERS, PAYMENT_METHOD_TYPES } from '../api/contract';
import { Field } from '../components/field';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { TableWrap } from '../components/table-wrap';
import { useLoad } from '../components/use-load';
import { useSubmit } from '../components/use-submit';
import { dateTime } from '../format';
import { canWrite, useSignedIn } from '../session';

// The sandbox: how this project's demo providers behave in test mode, per provider and segment, so
// routing can be watched shifting traffic (docs/routing.md, "The sandbox"). The server checks every
// value; a payment's test_scenario still wins over these settings.

interface DemoBehaviour {
  provider: string;
  payment_method: string;
  currency: string;
  country: string;
  approval_rate: number;
  technical_error_rate: number;
  latency_ms: number;
  outage_until: string | null;
  late_success_rate: number;
}

const pct = (r: number) => `${(r * 100).toFixed(1)} %`;
/** A percentage typed in the form as the API's share; blank: unchanged. */
const share = (text: string | undefined) => (text ? Number(text) / 100 : undefined);
const whole = (text: string | undefined) => (text ? Number(text) : undefined);
const segmentOf = (b: DemoBehaviour) => ({ provider: b.provider, payment_method: b.payment_method, currency: b.currency, country: b.country });

export function SandboxPage() {
  const session = useSignedIn();
  const list = useLoad(() => api.get<{ data: DemoBehaviour[] }>('/demo-behaviour'), [session.mode]);
  const [notice, setNotice] = useState<string>();
  const [rowError, setRowError] = useState<unknown>();
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    const set = await api.put<DemoBehaviour>('/demo-behaviour', {
      provider: v.provider, payment_method: v.payment_method, currency: v.currency, country: v.country || '*',
      approval_rate: share(v.approval_rate), technical_error_rate: share(v.technical_error_rate),
      latency_ms: whole(v.latency_ms), outage_minutes: whole(v.outage_minutes), late_success_rate: share(v.late_success_rate),
    });
    setNotice(`${set.provider} ${set.payment_method} ${set.currency} ${set.country} saved.`);
    list.reload();
  });
  const act = async (what: () => Promise<unknown>, said: string) => {
    setRowError(undefined);
    try {
      await what();
      setNotice(said);
      list.reload();
    } catch (e) {
      setRowError(e);
    }
  };
  const write = canWrite(session);

  if (session.mode !== 'test') {
    return (
      <>
        <h1>Sandbox</h1>
        <p>Demo providers exist in test mode only: switch to test mode to set how they behave.</p>
      </>
    );
  }
  const rows = list.data?.data ?? [];
  return (
    <>
      <h1>Sandbox</h1>
      <p>
        How this project’s demo providers behave for its test payments, per payment method, currency and country
        (<span class="mono">*</span>: any). A payment’s <span class="mono">test_scenario</span> still wins.
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={list.error} />
      <ErrorMessage error={rowError} />
      {list.loading && !list.data && <Loading what="the demo behaviour" />}
      {list.data && rows.length === 0 && <p class="muted">Nothing set: the demo providers approve every payment.</p>}
      {rows.length > 0 && (
        <TableWrap label="Demo behaviour table">
          <table>
            <thead>
              <tr>
                <th scope="col">Provider</th><th scope="col">Segment</th><th scope="col">Approves</th>
                <th scope="col">Technical errors</th><th scope="col">Late successes</th><th scope="col">Added latency</th>
                <th scope="col">Outage</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {rows.map((b) => {
                const name = `${b.provider} ${b.payment_method} ${b.currency} ${b.country}`;
                return (
                  <tr key={name}>
                    <td class="mono">{b.provider}</td>
                    <td>{b.payment_method} {b.currency} {b.country}</td>
                    <td>{pct(b.approval_rate)}</td>
                    <td>{pct(b.technical_error_rate)}</td>
                    <td>{pct(b.late_success_rate)}</td>
                    <td>{b.latency_ms} ms</td>
                    <td>{b.outage_until ? `until ${dateTime(b.outage_until)}` : 'none'}</td>
                    <td>
                      {write && b.outage_until && (
                        <button type="button" class="small" aria-label={`End the outage of ${name}`}
                          onClick={() => act(() => api.put('/demo-behaviour', { ...segmentOf(b), outage_minutes: 0 }), `Outage of ${name} ended.`)}>
                          End outage
                        </button>
                      )}
                      {write && (
                        <button type="button" class="danger small" aria-label={`Remove ${name}`}
                          onClick={() => act(() => api.delete(withQuery('/demo-behaviour', segmentOf(b))), `${name} removed.`)}>
                          Remove
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      )}
      {write && (
        <form onSubmit={onSubmit} aria-label="Set a demo provider's behaviour">
          <h2>Set a segment</h2>
          <p class="muted">Blank settings keep their value (a new segment approves everything, at once).</p>
          <Field id="provider" label="Demo provider">
            <select id="provider" name="provider">{DEMO_PROVIDERS.map((p) => <option key={p} value={p}>{p}</option>)}</select>
          </Field>
          <Field id="payment_method" label="Payment method">
            <select id="payment_method" name="payment_method">{PAYMENT_METHOD_TYPES.map((m) => <option key={m} value={m}>{m}</option>)}</select>
          </Field>
          <Field id="currency" label="Currency">
            <input id="currency" name="currency" required maxLength={3} class="mono" defaultValue="EUR" />
          </Field>
          <Field id="country" label="Country" hint="Two letters, or * for any.">
            <input id="country" name="country" maxLength={2} class="mono" defaultValue="*" aria-describedby="country-hint" />
          </Field>
          <Field id="approval_rate" label="Approves (% of answered payments)" hint="The rest are soft declines.">
            <input id="approval_rate" name="approval_rate" type="number" min="0" max="100" step="0.1" aria-describedby="approval_rate-hint" />
          </Field>
          <Field id="technical_error_rate" label="Technical errors (% of payments)">
            <input id="technical_error_rate" name="technical_error_rate" type="number" min="0" max="100" step="0.1" />
          </Field>
          <Field id="late_success_rate" label="Late successes (% of payments without a technical error)"
            hint="Never received, so the payment fails over; then reported charged after all, and returned.">
            <input id="late_success_rate" name="late_success_rate" type="number" min="0" max="100" step="0.1" aria-describedby="late_success_rate-hint" />
          </Field>
          <Field id="latency_ms" label="Added latency (ms)">
            <input id="latency_ms" name="latency_ms" type="number" min="0" max="10000" step="1" />
          </Field>
          <Field id="outage_minutes" label="Outage from now (minutes)" hint="0 ends an outage.">
            <input id="outage_minutes" name="outage_minutes" type="number" min="0" max="1440" step="1" aria-describedby="outage_minutes-hint" />
          </Field>
          <button type="submit" disabled={busy}>Save</button>
          <ErrorMessage error={error} />
        </form>
      )}
    </>
  );
}
