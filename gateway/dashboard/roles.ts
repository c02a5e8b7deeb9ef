import { DomainError } from '../../services/contract/index.js';
import type { Role } from '../store/users.js';

// What each member of a merchant may do in the dashboard. Seeing a secret only ever happens in the
// answer of the call that creates it (a key, an endpoint's signing secret), so whoever may not make
// such calls never sees one: a read-only member sees lists and details, nothing else.

export type Permission =
  | 'view' // payments, keys (without secrets), endpoints, deliveries, settings, team
  | 'operate' // capture, cancel and refund payments
  | 'develop' // API keys, webhook endpoints, resends, test events, the IP allow-list
  | 'administer'; // the team, business verification

const GRANTS: Record<Role, readonly Permission[]> = {
  owner: ['view', 'operate', 'develop', 'administer'],
  developer: ['view', 'operate', 'develop'],
  read_only: ['view'],
};

export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** 403 forbidden unless the role grants the permission. */
export function requirePermission(role: Role, permission: Permission): void {
  if (!can(role, permission)) {
    throw new DomainError('forbidden', `The ${role.replace('_', '-')} role cannot do this; ask an owner of the account.`);
  }
}
