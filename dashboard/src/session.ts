import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { api, setCsrfToken } from './api/client';
import type { Mode, Permission, Session } from './api/types';

// The signed-in session: who, which merchant and project, the role and the mode (test or live).
// Its CSRF token goes to the API client; nothing else of it is stored in the browser.

export interface SessionState {
  session: Session | null;
  /** Replaces the session after sign-in, a mode switch or sign-out (null). */
  set(session: Session | null): void;
}

export const SessionContext = createContext<SessionState>({ session: null, set: () => undefined });

export function useSession(): SessionState {
  return useContext(SessionContext);
}

/** The signed-in session; only for pages rendered inside the shell. */
export function useSignedIn(): Session {
  const { session } = useSession();
  if (!session) throw new Error('useSignedIn outside the signed-in shell');
  return session;
}

export async function loadSession(): Promise<Session | null> {
  try {
    return remember(await api.get<Session>('/session'));
  } catch {
    setCsrfToken(undefined);
    return null;
  }
}

export function remember(session: Session): Session {
  setCsrfToken(session.csrf_token);
  return session;
}

export async function switchMode(mode: Mode): Promise<Session> {
  return remember(await api.post<Session>('/mode', { mode }));
}

export async function signOut(everywhere = false): Promise<void> {
  await api.post(everywhere ? '/sign-out-everywhere' : '/sign-out');
  setCsrfToken(undefined);
}

/**
 * What the role allows, as the server says (session.permissions): pages hide what would be refused,
 * and the server refuses it anyway. A read-only member has only "view": no change, no secret.
 */
export const can = (s: Session, p: Permission) => s.permissions.includes(p);
export const canOperate = (s: Session) => can(s, 'operate');
export const canWrite = (s: Session) => can(s, 'develop');
export const isOwner = (s: Session) => can(s, 'administer');
