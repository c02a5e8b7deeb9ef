import { DomainError } from '../../services/contract/index.js';
import { MAX_ALLOWLIST_ENTRIES, normaliseEntry } from '../../services/contract/allowlist-entry.js';
import { actorOf, projectNotFound, type ManageDeps, type ManageHandlers } from './context.js';

// What the contract leaves to "project settings in the dashboard" (Authentication item 7):
// `GET` and `PUT /manage/v1/projects/:id/allowlist` with `{entries: [...]}`. A PUT replaces the
// whole list, `[]` lifts the restriction. It holds from the project's next request on every replica.

const ENTRY_HINT = 'an exact IPv4 or IPv6 address or a CIDR range such as 203.0.113.7, 10.0.0.0/8 or 2001:db8::/32';

/**
 * The list as stored: each entry in normal form, duplicates after normalisation dropped, order kept.
 * Checked here rather than by the schema: the management API's validator coerces (a lone string
 * would become a one-entry list), and a bad entry must be named by its position and value.
 */
export function normalisedEntries(value: unknown): string[] {
  if (!Array.isArray(value)) {
    throw new DomainError('validation_error', `entries must be an array, each ${ENTRY_HINT}`, { param: 'entries' });
  }
  if (value.length > MAX_ALLOWLIST_ENTRIES) {
    throw new DomainError(
      'validation_error',
      `entries has ${value.length} items; an allow-list holds at most ${MAX_ALLOWLIST_ENTRIES} (use CIDR ranges to cover more)`,
      { param: 'entries' },
    );
  }
  const entries: string[] = [];
  value.forEach((entry, i) => {
    const normal = typeof entry === 'string' ? normaliseEntry(entry) : undefined;
    if (normal === undefined) {
      throw new DomainError(
        'validation_error',
        `entries.${i} is ${JSON.stringify(entry) ?? String(entry)}, which is not ${ENTRY_HINT}`,
        { param: `entries.${i}` },
      );
    }
    if (!entries.includes(normal)) entries.push(normal);
  });
  return entries;
}

export function allowlistHandlers(deps: ManageDeps): ManageHandlers {
  const { store, clock } = deps;
  return {
    async getAllowlist(request) {
      const { id } = request.params as { id: string };
      const list = await store.getAllowlist(id);
      if (!list) throw projectNotFound(id);
      return list;
    },

    async setAllowlist(request) {
      const { id } = request.params as { id: string };
      const entries = normalisedEntries((request.body as { entries: unknown }).entries);
      const list = await store.setAllowlist(id, entries, actorOf(deps), clock.now());
      if (!list) throw projectNotFound(id);
      return list;
    },
  };
}
