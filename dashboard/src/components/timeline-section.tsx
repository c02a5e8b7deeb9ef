import type { TimelineEvent } from '../api/types';
import { dateTime } from '../format';

/** A payment's timeline entries, oldest first: the payment page's Timeline and a dispute's History. */
export function TimelineSection({ id, title, events }: { id: string; title: string; events: TimelineEvent[] }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <ol class="timeline">
        {events.map((e) => (
          <li key={e.id}>
            <time dateTime={e.created_at}>{dateTime(e.created_at)}</time>
            <strong>{e.title}</strong>
            {e.description && <p>{e.description}</p>}
          </li>
        ))}
      </ol>
    </section>
  );
}
