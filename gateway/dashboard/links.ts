import type { FastifyRequest } from 'fastify';
import type { DashboardDeps } from './context.js';
import { cameOverTls } from './session-cookie.js';

// The links the dashboard mails, to pages of the dashboard's front end (dashboard/), which read the
// token from the query and post it back: /dashboard/reset?token=… and /dashboard/invitation?token=….

export const RESET_LINK_LIFETIME_MS = 3_600_000;
export const INVITATION_LIFETIME_MS = 7 * 24 * 3_600_000;

/** PUBLIC_BASE_URL when the deployment sets it; else the address the browser used (Host header). */
export function linkTo(deps: DashboardDeps, request: FastifyRequest, page: 'reset' | 'invitation', token: string): string {
  const base = deps.config.publicBaseUrl ?? `${cameOverTls(request, deps) ? 'https' : 'http'}://${request.headers.host}`;
  return `${base}/dashboard/${page}?token=${encodeURIComponent(token)}`;
}
