import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { installCardDataCheck } from '../edge/card-data.js';
import { installAuditAddress } from '../http/audit-address-hook.js';
import { routeNotFound } from '../http/errors.js';
import { accountRoutes } from './account-routes.js';
import { installAddressThrottle } from './address-throttle.js';
import { mirroredRoutes } from './api-mirror.js';
import type { DashboardDeps } from './context.js';
import { exportRoutes } from './export-routes.js';
import { installGuards } from './guards.js';
import { operatorConsoleRoutes } from './operator-console-routes.js';
import { operatorRoutes } from './operator-routes.js';
import { keyRoutes } from './key-routes.js';
import { memberRoutes } from './member-routes.js';
import { passwordRoutes } from './password-routes.js';
import { ownerLinkRoutes } from './owner-link-routes.js';
import { providerRoutes } from './provider-routes.js';
import { registrationRoutes } from './registration-routes.js';
import { requestLogRoutes } from './request-log-routes.js';
import { routingRoutes } from './routing-routes.js';
import { installRetryAfter } from './retry-later.js';
import { sandboxRoutes } from './sandbox-routes.js';
import { settingsRoutes } from './settings-routes.js';
import { teamRoutes } from './team-routes.js';
import { webhookRoutes } from './webhook-routes.js';

// /dashboard/api as one encapsulated plugin. Cookies are parsed only here: /v1 never reads one, so
// a session cookie cannot authorise /v1 (it is not even sent there: its Path is /dashboard).

/** Register with `{ prefix: '/dashboard/api' }`. */
export function dashboardApiScope(deps: DashboardDeps) {
  return async function dashboardApi(scope: FastifyInstance): Promise<void> {
    await scope.register(cookie);
    installGuards(scope, deps);
    // After the Origin check (cheaper, no database), before the body is read: see address-throttle.ts.
    installRetryAfter(scope);
    installAddressThrottle(scope, deps);
    installAuditAddress(scope, deps.trustedProxies);
    installCardDataCheck(scope);
    scope.addHook('onRoute', (route) => {
      // Every route says who may call it; one that forgot would be reachable without a session.
      if (route.url.endsWith('/*')) return;
      if (route.config?.dashboard === undefined) throw new Error(`dashboard route ${route.method} ${route.url} declares no access`);
    });
    accountRoutes(scope, deps);
    registrationRoutes(scope, deps);
    ownerLinkRoutes(scope, deps);
    passwordRoutes(scope, deps);
    teamRoutes(scope, deps);
    memberRoutes(scope, deps);
    keyRoutes(scope, deps);
    mirroredRoutes(scope, deps);
    exportRoutes(scope, deps);
    requestLogRoutes(scope, deps);
    webhookRoutes(scope, deps);
    settingsRoutes(scope, deps);
    sandboxRoutes(scope, deps);
    providerRoutes(scope, deps);
    routingRoutes(scope, deps);
    // The deployment's operators: their own sign-in and session, never a member's (operator-session.ts).
    operatorRoutes(scope, deps);
    operatorConsoleRoutes(scope, deps);
    // Unknown API paths answer the JSON 404 rather than the front end's pages under /dashboard.
    scope.all('/*', routeNotFound);
  };
}
