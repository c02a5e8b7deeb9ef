import type { FastifyReply, FastifyRequest } from 'fastify';
import { inRanges } from '../../services/contract/ip-address.js';
import { clientAddress, parseHost } from '../edge/ip-allowlist.js';
import type { DashboardDeps } from './context.js';
import { newToken, tokenHash } from './tokens.js';

// The session cookie and the session's life. `svc_session`: HttpOnly (no script reads it), SameSite=Lax
// (not sent on another site's POSTs), Path=/dashboard (never sent to /v1, which would not accept it
// anyway), Secure when the browser reached us over TLS.

export const SESSION_COOKIE = 'svc_session';
export const COOKIE_PATH = '/dashboard';
/** A session ends this long after sign-in whatever happens... */
export const SESSION_LIFETIME_MS = 7 * 24 * 3_600_000;
/** ...and earlier when unused for this long. */
export const SESSION_IDLE_MS = 24 * 3_600_000;

/**
 * Whether the browser's connection was TLS: our own socket, or a trusted proxy saying so in
 * X-Forwarded-Proto (anyone else could send that header), or a PUBLIC_BASE_URL on https, which
 * says the deployment is only reached that way.
 */
export function cameOverTls(request: FastifyRequest, deps: Pick<DashboardDeps, 'trustedProxies' | 'config'>): boolean {
  if ((request.raw.socket as { encrypted?: boolean }).encrypted === true) return true;
  if (deps.config.publicBaseUrl?.startsWith('https:')) return true;
  const peer = parseHost(request.raw.socket.remoteAddress ?? '');
  if (!peer || !inRanges(peer, deps.trustedProxies)) return false;
  const proto = request.headers['x-forwarded-proto'];
  // The first value is the client's hop when proxies chain (the nearest proxy appends last).
  return (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0].trim().toLowerCase() === 'https';
}

/** The client's address as the IP allow-list sees it (trusted proxies walked), for throttling. */
export function clientIp(request: FastifyRequest, deps: Pick<DashboardDeps, 'trustedProxies'>): string {
  return clientAddress(request.raw.socket.remoteAddress, request.headers['x-forwarded-for'], deps.trustedProxies) ?? 'unknown';
}

function cookieOptions(request: FastifyRequest, deps: DashboardDeps, maxAgeSeconds: number) {
  return {
    httpOnly: true, sameSite: 'lax' as const, path: COOKIE_PATH, secure: cameOverTls(request, deps), maxAge: maxAgeSeconds,
  };
}

/** Signs a user in to a merchant (its oldest project, test mode): a new session and its cookie. */
export async function startSession(
  deps: DashboardDeps, request: FastifyRequest, reply: FastifyReply, userId: string, merchantId: string,
): Promise<string> {
  const at = deps.clock.now();
  const projectId = await deps.store.defaultProject(merchantId);
  if (!projectId) throw new Error(`merchant ${merchantId} has no project`);
  const token = newToken();
  await deps.store.createSession({
    tokenHash: tokenHash(token), userId, merchantId, projectId, at, expiresAt: new Date(at.getTime() + SESSION_LIFETIME_MS),
  });
  reply.setCookie(SESSION_COOKIE, token, cookieOptions(request, deps, SESSION_LIFETIME_MS / 1000));
  // Sign-ins are rare next to requests: a good moment to drop ended sessions.
  await deps.store.sweepSessions(at);
  return token;
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, deps: DashboardDeps): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request, deps, 0));
}
