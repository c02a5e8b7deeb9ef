import { useState } from 'preact/hooks';
import type { Mode } from '../api/types';
import { switchMode, useSession } from '../session';

// The one test/live switch. Test and live data are separate; the switch changes what every page
// shows and which keys and endpoints are managed.

export function ModeSwitch() {
  const { session, set } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  if (!session) return null;
  const live = session.mode === 'live';

  const toggle = async () => {
    const next: Mode = live ? 'test' : 'live';
    setBusy(true);
    setError(undefined);
    try {
      set(await switchMode(next));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  // One control with its visible name: the switch is "Live mode", on or off, and says which data shows.
  return (
    <div class="mode-switch">
      <button type="button" role="switch" aria-checked={live} onClick={toggle} disabled={busy}
        class={live ? 'toggle on' : 'toggle'}>
        <span class="track" aria-hidden="true"><span class="knob" /></span>
        <span class="toggle-label">Live mode</span>
      </button>
      <span class="visually-hidden" aria-live="polite">{live ? 'Showing live data' : 'Showing test data'}</span>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
