import type { FastifyInstance } from 'fastify';
import { RoutingRuleBody, RoutingRuleUpdateBody } from '../management/schemas.js';
import { routingRuleHandlers } from '../management/routing-rules.js';
import type { ManageOperationId } from '../management/operations.js';
import { manageDepsFor, sessionOf, type DashboardDeps } from './context.js';
import type { Permission } from './roles.js';

// The routing rules of the session's project and mode: created, listed, changed (conditions,
// priority, providers, strategy, variant) and deleted, with their A/B reports, through the
// management API's handlers (gateway/management/routing-rules.ts): the same calls to
// routing-risk, the same validation, JSON and audit entry. Paths mirror /manage/v1's without the
// project and mode, which are the session's. Changing how payments are routed is a developer's or
// owner's call, like the project's other integration settings.

interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  op: ManageOperationId;
  permission: Permission;
  body?: object;
}

const NO_QUERY = { type: 'object', additionalProperties: false, properties: {} };
/** A new rule as /manage/v1 takes it, less the mode: the session's. */
const { mode: _mode, ...ruleFields } = RoutingRuleBody.properties;
const NewRuleBody = { ...RoutingRuleBody, required: RoutingRuleBody.required.filter((f) => f !== 'mode'), properties: ruleFields };

const ROUTES: Route[] = [
  { method: 'GET', url: '/routing-rules', op: 'listRoutingRules', permission: 'view' },
  { method: 'POST', url: '/routing-rules', op: 'createRoutingRule', permission: 'develop', body: NewRuleBody },
  { method: 'DELETE', url: '/routing-rules/:rule', op: 'deleteRoutingRule', permission: 'develop' },
  { method: 'GET', url: '/routing-rules/:rule/report', op: 'getRoutingRuleReport', permission: 'view' },
  { method: 'PATCH', url: '/routing-rules/:rule', op: 'updateRoutingRule', permission: 'develop', body: RoutingRuleUpdateBody },
];

export function routingRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  for (const route of ROUTES) {
    scope.route({
      method: route.method,
      url: route.url,
      config: { dashboard: { permission: route.permission } },
      schema: { ...(route.body && { body: route.body }), querystring: NO_QUERY },
      handler: async (request, reply) => {
        const session = sessionOf(request);
        const handler = routingRuleHandlers(manageDepsFor(deps, session))[route.op]!;
        const answer = await handler({
          params: { ...(request.params as object), id: session.project.id },
          query: { mode: session.mode },
          body: route.op === 'createRoutingRule' ? { ...(request.body as object), mode: session.mode } : request.body,
        });
        return route.op === 'createRoutingRule' ? reply.code(201).send(answer) : answer;
      },
    });
  }
}
