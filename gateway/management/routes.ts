import type { FastifyInstance } from 'fastify';
import { DomainError, type Clock } from '../../services/shared/index.js';
import { requireOperator } from '../auth/operator.js';
import type { GatewayStore, Mode } from '../store/index.js';
import { allowlistRoutes } from './allowlist-routes.js';
import { deadLetterRoutes, type OutboxClients } from './dead-letter-routes.js';
import { rateLimitRoutes } from './rate-limit-routes.js';
import { routingRuleRoutes, type RoutingRuleDeps } from './routing-routes.js';
import { webhookRoutes, type WebhookRouteDeps } from './webhook-routes.js';

/**
 * The management API: what the contract says is done "in the dashboard", for the `svc` CLI.
 * Authenticated with the deployment's operator token; every change is audited.
 */
export function managementRoutes(
  app: FastifyInstance, store: GatewayStore, clock: Clock, operatorToken: string, routing: RoutingRuleDeps['routing'],
  webhooks?: WebhookRouteDeps['webhooks'], outbox?: OutboxClients,
): void {
  const actor = 'operator';
  const name = { type: 'string', minLength: 1, maxLength: 200 } as const;

  app.register(async (scoped) => {
    scoped.addHook('onRequest', async (request) => requireOperator(operatorToken, request));

    scoped.post<{ Body: { name: string } }>(
      '/merchants',
      { schema: { body: { type: 'object', additionalProperties: false, required: ['name'], properties: { name } } } },
      async (request, reply) => reply.code(201).send(await store.createMerchant(request.body.name, actor, clock.now())),
    );

    scoped.post<{ Params: { id: string } }>('/merchants/:id/verify', async (request) => {
      const merchant = await store.verifyMerchant(request.params.id, actor, clock.now());
      if (!merchant) throw new DomainError('resource_not_found', `No merchant ${request.params.id}`, { param: 'id' });
      return merchant;
    });

    scoped.post<{ Params: { id: string }; Body: { mode: Mode; name: string } }>(
      '/projects/:id/keys',
      {
        schema: {
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['mode', 'name'],
            properties: { mode: { type: 'string', enum: ['test', 'live'] }, name },
          },
        },
      },
      async (request, reply) => {
        const result = await store.createKey(request.params.id, request.body.mode, request.body.name, actor, clock.now());
        if ('refused' in result) {
          if (result.refused === 'project_not_found') {
            throw new DomainError('resource_not_found', `No project ${request.params.id}`, { param: 'id' });
          }
          throw new DomainError(
            'live_mode_not_verified',
            'Live keys can be created only after the merchant\'s business verification is approved.',
            { param: 'mode' },
          );
        }
        return reply.code(201).send({ ...result.key, secret: result.secret });
      },
    );

    scoped.get<{ Params: { id: string } }>('/projects/:id/keys', async (request) => {
      const keys = await store.listKeys(request.params.id);
      if (!keys) throw new DomainError('resource_not_found', `No project ${request.params.id}`, { param: 'id' });
      return { data: keys };
    });

    scoped.post<{ Params: { id: string } }>('/keys/:id/revoke', async (request) => {
      const key = await store.revokeKey(request.params.id, actor, clock.now());
      if (!key) throw new DomainError('resource_not_found', `No API key ${request.params.id}`, { param: 'id' });
      return key;
    });

    rateLimitRoutes(scoped, store, clock, actor);
    routingRuleRoutes(scoped, { routing, store }, clock, actor);
    allowlistRoutes(scoped, store, clock, actor);
    webhookRoutes(scoped, { webhooks, store }, clock, actor);
    deadLetterRoutes(scoped, { outbox, store }, clock, actor);
  }, { prefix: '/manage/v1' });
}
