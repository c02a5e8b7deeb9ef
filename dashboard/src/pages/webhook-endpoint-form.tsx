import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { WebhookEndpoint } from '../api/types';
import { EventsPicker } from '../components/events-picker';
import { Field } from '../components/field';
import { ErrorMessage } from '../components/messages';
import { useSubmit } from '../components/use-submit';

// Creating an endpoint answers its signing secret (shown once by the page); editing never does.

export function EndpointForm(props: {
  endpoint?: WebhookEndpoint;
  onSaved(endpoint: WebhookEndpoint, secret?: string): void;
  onCancel(): void;
}) {
  const e = props.endpoint;
  const [events, setEvents] = useState<string[]>(e?.events ?? ['*']);
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    if (events.length === 0) throw new Error('Choose at least one event, or all events.');
    const rate = v.max_deliveries_per_second === '' ? 0 : Number(v.max_deliveries_per_second);
    if (!Number.isInteger(rate) || rate < 0 || rate > 10_000) throw new Error('Maximum deliveries per second: a whole number from 0 (no limit) to 10000.');
    const body = { url: v.url, events, description: v.description || undefined, max_deliveries_per_second: e || rate > 0 ? rate : undefined };
    if (e) props.onSaved(await api.post<WebhookEndpoint>(`/webhook-endpoints/${encodeURIComponent(e.id)}`, body));
    else {
      const created = await api.post<WebhookEndpoint & { secret: string }>('/webhook-endpoints', body);
      props.onSaved(created, created.secret);
    }
  });
  const id = e ? `edit-${e.id}` : 'new-endpoint';
  return (
    <form class="panel" onSubmit={onSubmit} aria-label={e ? `Edit ${e.url}` : 'New endpoint'}>
      <h2>{e ? 'Edit endpoint' : 'New endpoint'}</h2>
      <Field id={`${id}-url`} label="Endpoint URL">
        <input id={`${id}-url`} name="url" type="url" required defaultValue={e?.url ?? ''} placeholder="https://example.com/webhooks" />
      </Field>
      <Field id={`${id}-description`} label="Description (optional)">
        <input id={`${id}-description`} name="description" defaultValue={e?.description ?? ''} maxLength={500} />
      </Field>
      <Field id={`${id}-rate`} label="Maximum deliveries per second (optional)" hint="Empty or 0: no limit. Held across all dispatchers.">
        <input id={`${id}-rate`} name="max_deliveries_per_second" type="number" min={0} max={10000} step={1}
          defaultValue={e?.max_deliveries_per_second ? String(e.max_deliveries_per_second) : ''} />
      </Field>
      <EventsPicker idPrefix={id} initial={events} onChange={setEvents} />
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={props.onCancel}>Cancel</button>
        <button type="submit" disabled={busy}>{e ? 'Save' : 'Create endpoint'}</button>
      </div>
    </form>
  );
}
