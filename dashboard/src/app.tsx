import { useEffect, useState } from 'preact/hooks';
import type { Session } from './api/types';
import { whenUnauthorized } from './api/client';
import { Shell } from './components/shell';
import { Loading } from './components/messages';
import { LiveChecklist } from './pages/live-checklist';
import { publicPage, signedInPage } from './routes';
import { navigate, useLocation } from './router';
import { loadSession, SessionContext } from './session';

// Loads the session once, then shows a signed-out page or the shell with the signed-in page.
// In live mode before verification is approved, every page acting on live data waits behind the checklist.

// The pages that neither show nor change anything of live mode's, open in live before verification:
// submitting the verification itself, and the team. Every other page (the allow-list included,
// which live keys obey) waits behind the checklist.
const OPEN_BEFORE_VERIFICATION = ['/settings/verification', '/settings/team'];

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const { path, query } = useLocation();

  useEffect(() => {
    loadSession().then(setSession);
    whenUnauthorized(() => setSession(null));
  }, []);

  useEffect(() => {
    if (session === null && !publicPage(path, query)) {
      navigate(`/sign-in?next=${encodeURIComponent(path)}`.replace(/\?next=%2F$/, ''), { replace: true });
    }
  }, [session, path]);

  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [path]);

  if (session === undefined) return <Loading what="the dashboard" />;
  const ctx = { session, set: setSession };
  const open = publicPage(path, query);
  if (!session) return <SessionContext.Provider value={ctx}>{open ?? null}</SessionContext.Provider>;
  // Signed in: an emailed link (reset, invitation) still opens; sign-in and register lead home.
  if (open && (path === '/sign-in' || path === '/register')) {
    navigate('/', { replace: true });
    return null;
  }
  const waiting = session.mode === 'live' && session.merchant.verification_status !== 'approved' && !OPEN_BEFORE_VERIFICATION.includes(path);
  return (
    <SessionContext.Provider value={ctx}>
      {open ?? <Shell path={path}>{waiting ? <LiveChecklist /> : signedInPage(path, query)}</Shell>}
    </SessionContext.Provider>
  );
}
