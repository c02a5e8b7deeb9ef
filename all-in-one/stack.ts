import { createClient, type Transport } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { ProviderPayoutsService } from '../proto/gen/svc/payments/v1/provider_payouts_pb.js';
import { ProviderAccountsService } from '../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import * as gateway from '../gateway/index.js';
import * as ledger from '../services/ledger/index.js';
import * as payments from '../services/payments/index.js';
import { PROVIDERS } from '../services/connectors/providers.js';
import type { Connector, ProviderDefinition } from '../services/payments/index.js';
import type { PayoutConnector } from '../services/payouts/index.js';
import * as payouts from '../services/payouts/index.js';
import * as routingRisk from '../services/routing-risk/index.js';
import * as webhooks from '../services/webhooks/index.js';
import type { EventBus } from '../services/platform/bus/index.js';
import type { Clock } from '../services/platform/clock.js';
import type { Config } from '../services/platform/config.js';
import { createDatabaseClock } from '../services/platform/database-clock.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { newInternalToken } from '../services/platform/internal-callers.js';
import type { Logger } from '../services/platform/logger.js';
import type { Metrics } from '../services/platform/metrics.js';
import { migrate } from '../services/platform/migrate.js';
import type { ServiceDeps, ServicePart } from '../services/platform/part.js';
import { listen } from '../services/platform/standalone.js';

/**
 * Settings whose safe default differs when every part runs in one process, hence one version: an
 * outbox pack is read by every consumer here, whereas parts upgraded one at a time may hold an older
 * consumer that would acknowledge a pack unread (services/platform/bus/event-pack.ts).
 */
export const ONE_PROCESS_DEFAULTS: Readonly<Record<string, string>> = { OUTBOX_PACK: 'true' };

export interface StackOptions {
  config: Config;
  databaseUrl: string;
  bus: EventBus;
  logger: Logger;
  clock?: Clock;
  /**
   * The licensed providers' definitions (PROVIDERS by default): a test adds its own stand-in
   * provider with `[...PROVIDERS, standIn]` (docs/connectors.md). payments makes their connectors;
   * routing-risk writes their providers rows at start.
   */
  providers?: readonly ProviderDefinition[];
  /**
   * Connectors by provider code that replace the ones the providers' definitions make or add to
   * them: tests' fakes (docs/connectors.md).
   */
  connectors?: Record<string, Connector>;
  /** Payout connectors by provider code; one named like a demo provider replaces it. */
  payoutConnectors?: Record<string, PayoutConnector>;
  /** How the dashboard mails; SMTP_HOST's server or the gateway's log by default, the console in `npm start`. */
  mailer?: gateway.Mailer;
  /** One registry for every part of this process (main.ts serves it on METRICS_PORT). */
  metrics?: Metrics;
  /**
   * Freeze the messages parts hand each other directly (IN_PROCESS_CALLS=direct): the test stacks
   * set it, so that code mutating a message it shares with another part fails there.
   */
  freezeInProcessMessages?: boolean;
}

export interface Stack {
  /** Base URL of the gateway's REST API. */
  baseUrl: string;
  /** gRPC base URL of each service part. */
  serviceUrls: Record<string, string>;
  /** The credential the parts admit for every project: INTERNAL_TOKEN, or one made for this process. */
  internalToken: string;
  gateway: FastifyInstance;
  close(): Promise<void>;
}

/** All six parts in one process calling each other in-process; each also on a loopback gRPC port, the gateway on config.port. */
export async function startStack(opts: StackOptions): Promise<Stack> {
  // Nothing to configure on one machine: without INTERNAL_TOKEN the parts share one made now, in memory.
  const internalToken = opts.config.internalToken ?? newInternalToken();
  const config: Config = { ...opts.config, internalToken };
  const pools: Pool[] = [];
  const parts: ServicePart[] = [];
  const serviceUrls: Record<string, string> = {};
  // One clock for the six parts of this process, read from the database (database-clock.ts).
  const clockPool = createPool(opts.databaseUrl, 'public', 1, config.database);
  pools.push(clockPool);
  const clock = createDatabaseClock({
    pool: clockPool, logger: opts.logger, metrics: opts.metrics, base: opts.clock,
    maxSkewMs: config.clockSkewMaxMs, intervalMs: config.clockSkewCheckMs,
  });

  async function depsFor(info: { name: string; schema: string; dir: string }): Promise<ServiceDeps> {
    const pool = createPool(opts.databaseUrl, info.schema, config.databasePoolSize, config.database);
    pools.push(pool);
    await migrate(pool, info.schema, info.dir);
    return { pool, bus: opts.bus, clock, logger: opts.logger.child({ part: info.name }), config, metrics: opts.metrics };
  }

  const how = { calls: config.inProcessCalls, freezeMessages: opts.freezeInProcessMessages };
  /** Starts a part; returns the one transport every caller in this process reaches it by. */
  async function run(part: ServicePart): Promise<Transport> {
    parts.push(part);
    await part.start();
    const port = await listen(part.server, 0, '127.0.0.1');
    serviceUrls[part.name] = `http://127.0.0.1:${port}`;
    return part.inProcess(how);
  }

  try {
    await clock.measure();
    clock.start();
    // Parts call each other in-process (IN_PROCESS_CALLS: directly by default, same interceptors, no
    // socket); each still listens on its own port for outside callers and probes (serviceUrls).
    const providers = opts.providers ?? PROVIDERS;
    const routingCalls = await run(routingRisk.build({ ...(await depsFor(routingRisk.PART)), providers }));
    // Before payments, whose scheduled settlement sync hands batches to it.
    const ledgerCalls = await run(ledger.build(await depsFor(ledger.PART)));
    const paymentsDeps = await depsFor(payments.PART);
    const paymentsCalls = await run(
      payments.build({
        ...paymentsDeps,
        routing: createClient(RoutingService, routingCalls),
        providerAccounts: createClient(ProviderAccountsService, routingCalls),
        ledger: createClient(LedgerService, ledgerCalls),
        providers: await payments.loadProviders(providers),
        connectors: opts.connectors,
      }),
    );
    const payoutsDeps = await depsFor(payouts.PART);
    const payoutsCalls = await run(payouts.build({
      ...payoutsDeps,
      routing: createClient(RoutingService, routingCalls),
      ledger: createClient(LedgerService, ledgerCalls),
      payments: createClient(ProviderPayoutsService, paymentsCalls),
      connectors: opts.payoutConnectors,
    }));
    const webhooksCalls = await run(webhooks.build(await depsFor(webhooks.PART)));

    // This process's own address is where its dashboard's mailed links point when PUBLIC_BASE_URL
    // is unset (known once it listens): configuration of a local run, never a request's Host header.
    const gatewayConfig: Config = { ...config };
    const gatewayPool = createPool(opts.databaseUrl, gateway.PART.schema, config.databasePoolSize, config.database);
    pools.push(gatewayPool);
    await migrate(gatewayPool, gateway.PART.schema, gateway.PART.dir);
    const app = gateway.build({
      pool: gatewayPool,
      clients: gateway.clientsOver({
        payments: paymentsCalls,
        routingRisk: routingCalls,
        webhooks: webhooksCalls,
        ledger: ledgerCalls,
        payouts: payoutsCalls,
      }),
      clock,
      logger: opts.logger.child({ part: 'gateway' }),
      config: gatewayConfig,
      operatorToken: config.operatorToken,
      mailer: opts.mailer,
      metrics: opts.metrics,
    });
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address() as { port: number };
    const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
    gatewayConfig.publicBaseUrl ??= `http://${host}:${address.port}`;

    return {
      baseUrl: `http://${host}:${address.port}`,
      serviceUrls,
      internalToken,
      gateway: app,
      async close() {
        // As the gateway's own process closes it: connections still open after the drain are cut.
        await gateway.closeGateway(app, config.shutdownTimeoutMs, opts.logger);
        for (const part of parts.reverse()) await part.close();
        clock.stop();
        await Promise.all(pools.map((p) => p.end()));
      },
    };
  } catch (err) {
    clock.stop();
    for (const part of parts.reverse()) await part.close().catch(() => undefined);
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    throw err;
  }
}
