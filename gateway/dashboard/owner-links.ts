import type { Clock } from '../../services/platform/clock.js';
import type { Config } from '../../services/platform/config.js';
import type { GatewayStore } from '../store/index.js';
import { linkBase, linkTo, OWNER_LINK_LIFETIME_MS } from './links.js';
import { newToken, tokenHash } from './tokens.js';

// Owner sign-in links: how a merchant made without a person (the one `npm start` makes with its test
// key, or one an operator made) gets its owner, so the dashboard shows the payments of that key.
// A link is issued by `npm start`'s first start (all-in-one/main.ts) or by the operator
// (POST /manage/v1/merchants/:id/owner-links, `svc merchant sign-in-link`); it is printed once, only
// its hash is stored, and it works once, within a day (opening it: owner-link-routes.ts).

export interface IssuedOwnerLink {
  url: string;
  merchant_id: string;
  expires_at: string;
}

/** A new owner sign-in link of the merchant, or undefined when there is no such merchant. */
export async function issueOwnerLink(
  deps: { store: GatewayStore; clock: Clock; config: Pick<Config, 'publicBaseUrl'> }, merchantId: string, actor: string,
): Promise<IssuedOwnerLink | undefined> {
  linkBase(deps); // refused before anything is made when no link can be built
  const token = newToken();
  const at = deps.clock.now();
  const expiresAt = new Date(at.getTime() + OWNER_LINK_LIFETIME_MS);
  const made = await deps.store.createOwnerLink({ merchantId, tokenHash: tokenHash(token), actor, at, expiresAt });
  return made ? { url: linkTo(deps, 'owner', token), merchant_id: merchantId, expires_at: expiresAt.toISOString() } : undefined;
}
