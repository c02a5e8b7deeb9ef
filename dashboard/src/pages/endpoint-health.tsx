import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { WebhookEndpoint } from '../api/types';
import { Field } from '../components/field';
import { ErrorMessage } from '../components/messages';
import { useSubmit } from '../components/use-submit';
import { dateTime, percent } from '../format';

// An endpoint's health on its card: why it is disabled (by a person, or for failing every delivery
// since when), its success rate over the last day, what waits and when the next retry is, its
// maximum rate and a receiver's pause (429 Retry-After); and "resend everything that failed since".

export function EndpointHealth({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  const h = e.health;
  return (
    <div class="endpoint-health" aria-label={`Health of ${e.url}`}>
      {e.disabled_reason === 'failing' && (
        <p class="error" role="status">
          Disabled {dateTime(e.disabled_at)}: every delivery failed since {dateTime(e.failing_since)}. The project's owners
          were mailed. Enable it once your receiver answers 2xx: what is pending is sent then.
        </p>
      )}
      {e.disabled_reason === 'manual' && <p class="muted">Disabled by a member {dateTime(e.disabled_at)}; deliveries wait.</p>}
      {e.status === 'enabled' && e.failing_since && (
        <p class="error">Failing since {dateTime(e.failing_since)}: every attempt since then failed.</p>
      )}
      {h && (
        <p>
          Last 24 h: <strong>{percent(h.success_rate_24h)}</strong> succeeded of {h.attempts_24h} attempt{h.attempts_24h === 1 ? '' : 's'}
          {' · '}{h.pending_deliveries} pending{h.next_retry_at ? `, next retry ${dateTime(h.next_retry_at)}` : ''}
        </p>
      )}
      <p class="muted">
        {e.max_deliveries_per_second ? `At most ${e.max_deliveries_per_second} deliveries per second.` : 'No rate limit.'}
        {e.retry_after_until && Date.parse(e.retry_after_until) > Date.now() ? ` Paused by the receiver (429) until ${dateTime(e.retry_after_until)}.` : ''}
      </p>
    </div>
  );
}

/** Resends every failed or exhausted delivery of the endpoint created since a time (each a normal resend). */
export function RecoverForm(props: { endpoint: WebhookEndpoint; onDone(said: string): void; onCancel(): void }) {
  const e = props.endpoint;
  const [since] = useState(() => new Date(Date.now() - 86_400_000).toISOString().slice(0, 16));
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    const at = new Date(v.since);
    if (Number.isNaN(at.getTime())) throw new Error('Choose the time from which failed deliveries are resent.');
    const res = await api.post<{ deliveries: number; joined: boolean; resent: number }>(`/webhook-endpoints/${encodeURIComponent(e.id)}/recover`, {
      since: at.toISOString(),
    });
    if (res.joined) return props.onDone(`A resend of failed deliveries to ${e.url} is already under way: ${res.resent} of ${res.deliveries} resent.`);
    props.onDone(`${res.deliveries} failed deliver${res.deliveries === 1 ? 'y' : 'ies'} to ${e.url} since ${dateTime(at.toISOString())} being resent.`);
  });
  const id = `recover-${e.id}`;
  return (
    <form class="panel" onSubmit={onSubmit} aria-label={`Resend failed deliveries to ${e.url}`}>
      <h2>Resend failed deliveries</h2>
      <Field id={`${id}-since`} label="Failed since (your time)" hint="Each is resent with its event id, as a resend from its page is.">
        <input id={`${id}-since`} name="since" type="datetime-local" required defaultValue={since} />
      </Field>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={props.onCancel}>Cancel</button>
        <button type="submit" disabled={busy}>Resend</button>
      </div>
    </form>
  );
}
