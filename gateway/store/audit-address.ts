import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The client address of the request being served, for the audit log. Every audited change (by the
 * management API or the dashboard, kept by this store or by another part) is recorded through
 * audit() in keys.ts deep below the request; carrying the address here spares each of the many
 * store calls an extra parameter. Set per request by the scopes that change things
 * (gateway/http/audit-address-hook.ts); outside a request there is none.
 */
const current = new AsyncLocalStorage<{ address: string | undefined }>();

export function runWithAuditAddress<T>(address: string | undefined, fn: () => T): T {
  return current.run({ address }, fn);
}

export function auditAddress(): string | null {
  return current.getStore()?.address ?? null;
}
