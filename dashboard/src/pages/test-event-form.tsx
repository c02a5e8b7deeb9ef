import { api } from '../api/client';
import { EVENT_TYPES } from '../api/contract';
import { Field } from '../components/field';
import { ErrorMessage } from '../components/messages';
import { useSubmit } from '../components/use-submit';

// A real, signed test event of a chosen type to every enabled endpoint subscribed to it
// (POST /v1/webhooks/test, as the dashboard's session).

export function TestEventForm({ onSent }: { onSent(said: string): void }) {
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    const res = await api.post<{ event_id: string; deliveries: number }>('/webhooks/test', { event_type: v.event_type });
    onSent(`Test event ${res.event_id} sent: ${res.deliveries} ${res.deliveries === 1 ? 'delivery' : 'deliveries'}; see Deliveries.`);
  });
  return (
    <form class="inline-form" onSubmit={onSubmit} aria-label="Send a test event">
      <Field id="test-event-type" label="Test event type">
        <select id="test-event-type" name="event_type">
          {EVENT_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
      </Field>
      <button type="submit" class="secondary" disabled={busy}>Send test event</button>
      <ErrorMessage error={error} />
    </form>
  );
}
