import { DomainError } from '../../services/contract/index.js';
import { limitReached, MAX_ACTIVE_API_KEYS } from '../../services/contract/project-caps.js';
// The file itself, not the dashboard's index, whose routes import these handlers: no import cycle.
import type { Mode } from '../store/index.js';
import { actorOf, projectNotFound, type ManageDeps, type ManageHandlers } from './context.js';

// Merchants, their projects' API keys and each key's rate limit. The gateway's store keeps them
// and audits every change in the same transaction.

// Same upper bound as RATE_LIMIT_PER_MINUTE, so a key's own ceiling is never out of a range the
// deployment-wide one could not be set to.
const MAX_PER_MINUTE = 10_000_000;

const keyNotFound = (keyId: string) => new DomainError('resource_not_found', `No API key ${keyId}`, { param: 'id' });

/**
 * `per_minute` of `PUT /manage/v1/keys/:id/rate-limit`: N, or null for the deployment's
 * RATE_LIMIT_PER_MINUTE. Checked here rather than by type in the schema, so "5" or true is refused
 * with the range an operator may set rather than a bare type error.
 */
function perMinuteOf(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_PER_MINUTE) return value;
  throw new DomainError(
    'validation_error',
    `per_minute must be a whole number from 1 to ${MAX_PER_MINUTE}, or null for the deployment default`,
    { param: 'per_minute' },
  );
}

export function accountHandlers(deps: ManageDeps): ManageHandlers {
  const { store, clock } = deps;
  const actor = actorOf(deps);
  return {
    async createMerchant(request) {
      return store.createMerchant((request.body as { name: string }).name, actor, clock.now());
    },

    async verifyMerchant(request) {
      const { id } = request.params as { id: string };
      const merchant = await store.verifyMerchant(id, actor, clock.now());
      if (!merchant) throw new DomainError('resource_not_found', `No merchant ${id}`, { param: 'id' });
      return merchant;
    },

    async rejectMerchant(request) {
      const { id } = request.params as { id: string };
      const reason = (request.body as { reason: string }).reason.trim();
      if (!reason) throw new DomainError('validation_error', 'Say why the verification is rejected.', { param: 'reason' });
      const result = await store.rejectVerification(id, reason, actor, clock.now());
      if ('verification' in result) return result.verification;
      if (result.refused === 'merchant_not_found') throw new DomainError('resource_not_found', `No merchant ${id}`, { param: 'id' });
      throw new DomainError(
        'invalid_state_transition',
        result.refused === 'already_approved'
          ? 'The merchant is verified already; live mode is open.'
          : 'The merchant has no verification submission waiting for a decision.',
      );
    },

    // The link is in this answer only: its token is stored hashed and never shown again.
    async createOwnerLink(request) {
      const { id } = request.params as { id: string };
      if (!deps.issueOwnerLink) throw new Error('owner sign-in links are issued through the operator API only');
      const issued = await deps.issueOwnerLink(id, actor);
      if (!issued) throw new DomainError('resource_not_found', `No merchant ${id}`, { param: 'id' });
      return issued;
    },

    async createKey(request) {
      const { id } = request.params as { id: string };
      const body = request.body as { mode: Mode; name: string };
      const result = await store.createKey(id, body.mode, body.name, actor, clock.now());
      if ('refused' in result) {
        if (result.refused === 'project_not_found') throw projectNotFound(id);
        if (result.refused === 'limit_reached') {
          throw limitReached(`active ${body.mode} API keys`, MAX_ACTIVE_API_KEYS, 'revoke one it no longer uses first.');
        }
        throw new DomainError(
          'live_mode_not_verified',
          'Live keys can be created only after the merchant\'s business verification is approved.',
          { param: 'mode' },
        );
      }
      return { ...result.key, secret: result.secret };
    },

    async listKeys(request) {
      const { id } = request.params as { id: string };
      const keys = await store.listKeys(id);
      if (!keys) throw projectNotFound(id);
      return { data: keys };
    },

    async revokeKey(request) {
      const { id } = request.params as { id: string };
      const key = await store.revokeKey(id, actor, clock.now());
      if (!key) throw keyNotFound(id);
      return key;
    },

    // Takes effect on the key's next request on every replica (the identity is read per request).
    async setKeyRateLimit(request) {
      const { id } = request.params as { id: string };
      const perMinute = perMinuteOf((request.body as { per_minute: unknown }).per_minute);
      const key = await store.setKeyRateLimit(id, perMinute, actor, clock.now());
      if (!key) throw keyNotFound(id);
      return key;
    },
  };
}
