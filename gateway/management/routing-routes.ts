import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import type { RoutingRule, RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { DomainError, type Clock } from '../../services/shared/index.js';
import type { GatewayStore } from '../store/index.js';

/**
 * Named routing rules of a project and mode, kept by routing-risk and managed here over gRPC:
 *   POST   /manage/v1/projects/:id/routing-rules              {mode, name, priority, providers, ...}
 *   GET    /manage/v1/projects/:id/routing-rules?mode=M        lowest priority number first
 *   DELETE /manage/v1/projects/:id/routing-rules/:rule?mode=M
 * The rule's mode is explicit like an API key's: test and live traffic are routed separately.
 */
export interface RoutingRuleDeps {
  /** routing-risk; without ROUTING_RISK_URL these routes answer 503. */
  routing?: Client<typeof RoutingService>;
  /** The gateway's store: the project's merchant and the audit log. */
  store: GatewayStore;
}

type Mode = 'test' | 'live';

interface RuleBody {
  mode: Mode;
  name: string;
  priority: unknown;
  currencies?: string[];
  countries?: string[];
  payment_method_types?: string[];
  min_amount?: unknown;
  max_amount?: unknown;
  providers: string[];
}

const invalid = (param: string, message: string) => new DomainError('validation_error', message, { param });
const list = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 50 } as const;
const modeSchema = { type: 'string', enum: ['test', 'live'] } as const;
const modeQuery = { type: 'object', additionalProperties: false, required: ['mode'], properties: { mode: modeSchema } };

// Whole numbers are checked here rather than by type in the schema, so "5" or 1.5 is refused by
// name instead of coerced, and amounts stay exact on their way to int64.
function wholeNumber(value: unknown, param: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(param, `${param} must be a whole number`);
  return value;
}

function bound(value: unknown, param: string): bigint | undefined {
  return value === undefined || value === null ? undefined : BigInt(wholeNumber(value, param));
}

export function ruleJson(rule: RoutingRule, projectId: string, mode: string) {
  return {
    id: rule.id,
    object: 'routing_rule',
    project_id: projectId,
    mode,
    name: rule.name,
    priority: rule.priority,
    currencies: rule.currencies,
    countries: rule.countries,
    payment_method_types: rule.paymentMethodTypes,
    min_amount: rule.minAmount === undefined ? null : Number(rule.minAmount),
    max_amount: rule.maxAmount === undefined ? null : Number(rule.maxAmount),
    providers: rule.providers,
    created_at: rule.createdAt ? timestampDate(rule.createdAt).toISOString() : null,
  };
}

export function routingRuleRoutes(scoped: FastifyInstance, deps: RoutingRuleDeps, clock: Clock, actor: string): void {
  const routing = () => {
    if (!deps.routing) {
      throw new DomainError('service_unavailable', 'Routing rules need routing-risk: set ROUTING_RISK_URL on the gateway.');
    }
    return deps.routing;
  };

  async function scopeOf(projectId: string, mode: Mode) {
    const merchantId = await deps.store.projectMerchant(projectId);
    if (!merchantId) throw new DomainError('resource_not_found', `No project ${projectId}`, { param: 'id' });
    return { merchantId, projectId, mode };
  }

  // After routing-risk has answered: the change and its record live in two parts, and an audit
  // row for a change that was refused would be worse than none for one whose reply was lost.
  async function audit(action: string, scope: { merchantId: string; projectId: string }, rule: ReturnType<typeof ruleJson>) {
    await deps.store.recordAudit(actor, action, clock.now(), {
      merchantId: scope.merchantId, projectId: scope.projectId, targetId: rule.id, data: rule,
    });
  }

  scoped.post<{ Params: { id: string }; Body: RuleBody }>(
    '/projects/:id/routing-rules',
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['mode', 'name', 'priority', 'providers'],
          properties: {
            mode: modeSchema,
            name: { type: 'string', minLength: 1, maxLength: 64 },
            priority: {},
            currencies: list,
            countries: list,
            payment_method_types: list,
            min_amount: {},
            max_amount: {},
            providers: { ...list, minItems: 1 },
          },
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const scope = await scopeOf(request.params.id, b.mode);
      const { rule } = await routing().createRoutingRule({
        scope,
        rule: {
          name: b.name,
          priority: wholeNumber(b.priority, 'priority'),
          currencies: (b.currencies ?? []).map((c) => c.toUpperCase()),
          countries: (b.countries ?? []).map((c) => c.toUpperCase()),
          paymentMethodTypes: b.payment_method_types ?? [],
          minAmount: bound(b.min_amount, 'min_amount'),
          maxAmount: bound(b.max_amount, 'max_amount'),
          providers: b.providers,
        },
      });
      const json = ruleJson(rule!, scope.projectId, scope.mode);
      await audit('routing_rule.created', scope, json);
      return reply.code(201).send(json);
    },
  );

  scoped.get<{ Params: { id: string }; Querystring: { mode: Mode } }>(
    '/projects/:id/routing-rules',
    { schema: { querystring: modeQuery } },
    async (request) => {
      const scope = await scopeOf(request.params.id, request.query.mode);
      const { rules } = await routing().listRoutingRules({ scope });
      return { data: rules.map((r) => ruleJson(r, scope.projectId, scope.mode)) };
    },
  );

  scoped.delete<{ Params: { id: string; rule: string }; Querystring: { mode: Mode } }>(
    '/projects/:id/routing-rules/:rule',
    { schema: { querystring: modeQuery } },
    async (request) => {
      const scope = await scopeOf(request.params.id, request.query.mode);
      const { rule } = await routing().deleteRoutingRule({ scope, id: request.params.rule });
      const json = ruleJson(rule!, scope.projectId, scope.mode);
      await audit('routing_rule.deleted', scope, json);
      return json;
    },
  );
}
