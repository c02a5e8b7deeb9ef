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

  return (
    <div class="mode-switch">
      <button type="button" role="switch" aria-checked={live} onClick={toggle} disabled={busy} class={live ? 'live' : 'test'}>
        <span class="visually-hidden">Live mode</span>
        <span aria-hidden="true">{live ? 'Live' : 'Test'}</span>
      </button>
      <span class="mode-label" aria-hidden="true">
        {live ? 'Live data' : 'Test data'}
      </span>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
