import type { FastifyInstance } from 'fastify';
import type { AddressRange } from '../../services/contract/ip-address.js';
import { clientAddress } from '../edge/ip-allowlist.js';
import { runWithAuditAddress } from '../store/index.js';

/**
 * Runs each request of a scope that makes audited changes (/manage/v1, /dashboard/api) with its
 * client's address at hand for the audit log: the socket's peer, or behind a TRUSTED_PROXIES proxy
 * the address it forwarded, walked exactly as the IP allow-list walks it. A callback hook whose
 * `done` runs inside the context, so the later hooks and the handler (body parsing included, which
 * Fastify binds to the request) see it.
 */
export function installAuditAddress(scope: FastifyInstance, trustedProxies: readonly AddressRange[]): void {
  scope.addHook('onRequest', (request, _reply, done) => {
    const address = clientAddress(request.raw.socket.remoteAddress, request.headers['x-forwarded-for'], trustedProxies);
    runWithAuditAddress(address, done);
  });
}
