import { useState } from 'preact/hooks';
import { EVENT_TYPES } from '../api/contract';

// The subscriptions of an endpoint: every event ("*") or a chosen list, as labelled checkboxes.

export function EventsPicker(props: { idPrefix: string; initial: string[]; onChange(events: string[]): void }) {
  const [all, setAll] = useState(props.initial.includes('*') || props.initial.length === 0);
  const [chosen, setChosen] = useState<string[]>(props.initial.filter((e) => e !== '*'));
  const update = (nextAll: boolean, next: string[]) => {
    setAll(nextAll);
    setChosen(next);
    props.onChange(nextAll ? ['*'] : next);
  };
  return (
    <fieldset class="events">
      <legend>Events</legend>
      <label class="check">
        <input type="checkbox" checked={all} onChange={(e) => update(e.currentTarget.checked, chosen)} />
        All events, including types added later
      </label>
      {!all && (
        <div class="checks">
          {EVENT_TYPES.map((t) => (
            <label key={t} class="check" for={`${props.idPrefix}-${t}`}>
              <input id={`${props.idPrefix}-${t}`} type="checkbox" checked={chosen.includes(t)}
                onChange={(e) => update(false, e.currentTarget.checked ? [...chosen, t] : chosen.filter((c) => c !== t))} />
              <span class="mono">{t}</span>
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}
