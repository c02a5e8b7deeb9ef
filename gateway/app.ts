import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { newId, type Clock, type Config, type Logger, type Pool } from '../services/shared/index.js';
import { apiScope } from './api/scope.js';
import type { GatewayClients } from './clients.js';
import { buildOpenApi } from '../services/shared/contract/openapi.js';
import { withCardNumbersWithheld } from './edge/card-data.js';
import { installErrorHandling } from './http/errors.js';
import { installJsonBody } from './http/json-body.js';
import { serverOptions } from './http/server-options.js';
import { refuseWhileClosing, trackClosing } from './http/shutdown.js';
import { installTextRules } from './http/text-rules.js';
import { refuseLongUrl } from './http/transport-errors.js';
import { installValidation } from './http/validation.js';
import { manageScope } from './management/scope.js';
import { sandboxPages } from './sandbox/index.js';
import { createStore } from './store/index.js';

export type { GatewayClients } from './clients.js';

export interface GatewayDeps {
  pool: Pool;
  clients: GatewayClients;
  clock: Clock;
  logger: Logger;
  config: Config;
  /** Enables the management API; without it the /manage routes do not exist. */
  operatorToken?: string;
}

/**
 * The HTTP gateway, ready to listen. The root holds what every request meets; /v1 and /manage/v1 are
 * encapsulated plugins whose hooks (authentication first) touch only their own routes.
 */
export function build(deps: GatewayDeps): FastifyInstance {
  const app: FastifyInstance = Fastify({
    ...serverOptions(deps.config),
    loggerInstance: withCardNumbersWithheld(deps.logger) as FastifyBaseLogger,
    genReqId: () => newId('req'),
  });
  const store = createStore(deps.pool);
  const isClosing = trackClosing(app);

  // Fastify adds hooks in registration order and a plugin inherits the hooks its parent has when it
  // loads, so the root's hooks are installed before any scope is registered.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    refuseWhileClosing(isClosing, reply);
    refuseLongUrl(request.url);
  });
  installErrorHandling(app);
  installValidation(app);
  // Bodies are parsed strictly (json-body.ts); path and query text is checked on every route
  // (text-rules.ts) before the scopes' own preValidation hooks and validation.
  installJsonBody(app);
  installTextRules(app);

  const openApi = JSON.stringify(buildOpenApi());
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(openApi));
  app.register(sandboxPages(deps.clients.payments)); // the customer's browser: token, not API key (not /v1)
  app.register(apiScope({ store, clients: deps.clients, clock: deps.clock, config: deps.config }), { prefix: '/v1' });
  if (deps.operatorToken) {
    app.register(manageScope({ store, clock: deps.clock, clients: deps.clients, operatorToken: deps.operatorToken }), {
      prefix: '/manage/v1',
    });
  }
  return app;
}
