import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// The bearer secrets of the dashboard: the session cookie, and the links mailed for a password reset
// or an invitation. Each is 32 random bytes (base64url); only its SHA-256 is stored, so a copy of
// the database opens no session and no link.

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The session's CSRF token, derived from the session's own secret (synchronizer token without
 * storage): a page of another site can neither read the cookie nor this value, and one session's
 * token is worthless in another. Domain-separated from tokenHash, so it reveals nothing stored.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`svc-dashboard-csrf:${sessionToken}`).digest('base64url');
}

/** Constant-time check of a presented CSRF token against the session's. */
export function csrfMatches(sessionToken: string, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A token as it arrives in a cookie or a body: base64url of 32 bytes, else nothing worth a query. */
export function isTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}
