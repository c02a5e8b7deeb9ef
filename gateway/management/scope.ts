import type { FastifyInstance } from 'fastify';
import { installOperatorAuthentication } from '../auth/operator.js';
import type { AddressRange } from '../../services/contract/ip-address.js';
import { installAuditAddress } from '../http/audit-address-hook.js';
import { accountHandlers } from './accounts.js';
import { allowlistHandlers } from './allowlist.js';
import type { ManageDeps, ManageHandlers } from './context.js';
import { deadLetterHandlers } from './dead-letters.js';
import { demoBehaviourHandlers } from './demo-behaviour.js';
import { MANAGE_OPERATIONS } from './operations.js';
import { overviewHandlers } from './overview.js';
import { providerAccountHandlers } from './provider-accounts.js';
import { routingRuleHandlers } from './routing-rules.js';
import { MAX_SETTLEMENT_REPORT_BYTES, settlementReportHandlers } from './settlement-reports.js';
import { webhookHandlers } from './webhooks.js';

// /manage/v1 as one encapsulated plugin: the operator token is checked by a hook registered here,
// so it touches these routes only. An unknown /manage/v1 URL is the root's 404, as it always was.

function handlersOf(deps: ManageDeps): ManageHandlers {
  return {
    ...overviewHandlers(deps),
    ...accountHandlers(deps),
    ...allowlistHandlers(deps),
    ...routingRuleHandlers(deps),
    ...webhookHandlers(deps),
    ...providerAccountHandlers(deps),
    ...settlementReportHandlers(deps),
    ...deadLetterHandlers(deps),
    ...demoBehaviourHandlers(deps),
  };
}

/** Register with `{ prefix: '/manage/v1' }`; the table's paths begin with it. */
export function manageScope(deps: ManageDeps & { operatorToken: string; trustedProxies: AddressRange[] }) {
  return async function manage(scope: FastifyInstance): Promise<void> {
    installOperatorAuthentication(scope, deps.operatorToken);
    installAuditAddress(scope, deps.trustedProxies);
    // Providers' settlement reports are CSV files, taken as text (only under /manage/v1).
    scope.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: MAX_SETTLEMENT_REPORT_BYTES }, (_request, body, done) => {
      done(null, body);
    });
    const handlers = handlersOf(deps);
    for (const op of MANAGE_OPERATIONS) {
      const handler = handlers[op.id];
      if (!handler) throw new Error(`no handler for the management operation ${op.id}`);
      if (!op.path.startsWith(`${scope.prefix}/`)) throw new Error(`${op.path} is outside the scope ${scope.prefix}`);
      scope.route({
        method: op.method,
        url: op.path.slice(scope.prefix.length),
        ...((op.body || op.query) && {
          schema: { ...(op.body && { body: op.body }), ...(op.query && { querystring: op.query }) },
        }),
        handler: async (request, reply) => {
          const result = await handler(request);
          return reply.code(op.status).send(result);
        },
      });
    }
  };
}
