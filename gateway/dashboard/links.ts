import { DomainError } from '../../services/contract/index.js';
import type { Config } from '../../services/platform/config.js';

// The links the dashboard mails, to pages of the dashboard's front end (dashboard/), which read the
// token from the query and post it back: /dashboard/reset?token=…, /dashboard/invitation?token=…
// and /dashboard/confirm?token=…. Their base is PUBLIC_BASE_URL and nothing else: a request's Host
// header is whatever its sender wrote, and a link built from it would carry a valid token to them.
// An owner sign-in link (/dashboard/owner?token=…) is not mailed but printed, by `npm start` or
// `svc merchant sign-in-link`, for the person at that terminal.

export const RESET_LINK_LIFETIME_MS = 3_600_000;
export const INVITATION_LIFETIME_MS = 7 * 24 * 3_600_000;
/** A registration waits a day for its link: long enough for a slow mailbox, short for a squatter. */
export const REGISTRATION_LIFETIME_MS = 24 * 3_600_000;
/** An owner sign-in link waits a day too: the rest of a first day with `npm start`, and no longer. */
export const OWNER_LINK_LIFETIME_MS = 24 * 3_600_000;

export type LinkPage = 'reset' | 'invitation' | 'confirm' | 'sign-in' | 'owner';

/** Where a link's base comes from: the deployment's configuration only. */
type LinkDeps = { config: Pick<Config, 'publicBaseUrl'> };

/**
 * The deployment's public base URL, or 503 not_configured naming PUBLIC_BASE_URL. Called before a
 * token is made, so a refused request leaves nothing behind.
 */
export function linkBase(deps: LinkDeps): string {
  const base = deps.config.publicBaseUrl;
  if (!base) {
    throw new DomainError('not_configured',
      'This deployment cannot mail links: PUBLIC_BASE_URL (where users reach the dashboard) is not set. Ask its operator to set it.');
  }
  return base;
}

export function linkTo(deps: LinkDeps, page: LinkPage, token?: string): string {
  const url = `${linkBase(deps)}/dashboard/${page}`;
  return token === undefined ? url : `${url}?token=${encodeURIComponent(token)}`;
}
