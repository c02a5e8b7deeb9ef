import { useEffect, useState } from 'preact/hooks';
import { api, setCsrfToken, whenUnauthorized } from '../api/client';
import { Loading } from '../components/messages';
import { match, useLocation } from '../router';
import { AuditLogPage } from './audit-log';
import { MerchantsPage } from './merchants';
import { OperatorShell } from './operator-shell';
import { OperatorSignIn } from './operator-sign-in';
import type { OperatorSession } from './types';
import { VerificationQueuePage } from './verification-queue';

// The operator console, under /dashboard/operator: a separate area of the same app for the
// deployment's operators, signed in with OPERATOR_TOKEN to a session of its own (never a
// merchant member's). Its API is /dashboard/api/operator.

const PAGES: [string, () => preact.VNode][] = [
  ['/operator', () => <VerificationQueuePage />],
  ['/operator/merchants', () => <MerchantsPage />],
  ['/operator/audit-log', () => <AuditLogPage />],
];

async function loadOperatorSession(): Promise<OperatorSession | null> {
  try {
    const session = await api.get<OperatorSession>('/operator/session');
    setCsrfToken(session.csrf_token);
    return session;
  } catch {
    setCsrfToken(undefined);
    return null;
  }
}

export function OperatorApp() {
  const [session, setSession] = useState<OperatorSession | null | undefined>(undefined);
  const { path } = useLocation();

  useEffect(() => {
    loadOperatorSession().then(setSession);
    whenUnauthorized(() => setSession(null));
  }, []);

  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [path]);

  if (session === undefined) return <Loading what="the operator console" />;
  if (!session) {
    return <OperatorSignIn onSignedIn={(s) => { setCsrfToken(s.csrf_token); setSession(s); }} />;
  }
  const page = PAGES.find(([pattern]) => match(pattern, path));
  return (
    <OperatorShell path={path} onSignedOut={() => setSession(null)}>
      {page ? page[1]() : <h1>Page not found</h1>}
    </OperatorShell>
  );
}
