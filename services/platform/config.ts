import { commonSettings, peerVariable, type CommonSettings, type PartName, type ServiceName } from './config/common.js';
import { dashboardSettings, type DashboardSettings } from './config/dashboard.js';
import { gatewaySettings, type GatewaySettings } from './config/gateway.js';
import { ledgerSettings, type LedgerSettings } from './config/ledger.js';
import { MissingVariablesError, type Env } from './config/parse.js';
import { paymentsSettings, type PaymentsSettings } from './config/payments.js';
import { payoutsSettings, type PayoutsSettings } from './config/payouts.js';
import { routingRiskSettings, type RoutingRiskSettings } from './config/routing-risk.js';
import { webhooksSettings, type WebhooksSettings } from './config/webhooks.js';

// Every environment variable the service reads is parsed here, once, at start-up: the settings
// every part reads (config/common.ts) and each part's own (config/<part>.ts), read by the helpers
// of config/parse.ts. A bad or missing value stops start-up with a message that names the variable.
// The list of variables, with their defaults and bounds, is config-variables.ts.

export {
  DEFAULT_DATABASE_TIMEOUTS, IN_PROCESS_CALLS, OTLP_PROTOCOLS, SERVICE_NAMES, peerVariable,
  type DatabaseTimeouts, type InProcessCalls, type OtlpProtocol, type PartName, type ServiceName,
} from './config/common.js';
export type { SmtpSettings } from './config/dashboard.js';
export { ConfigError, MissingVariablesError, RENAMED, warnRenamedVariables } from './config/parse.js';

export interface Config extends CommonSettings, GatewaySettings, DashboardSettings, PaymentsSettings,
  RoutingRiskSettings, LedgerSettings, PayoutsSettings, WebhooksSettings {}

export function loadConfig(env: Env = process.env): Config {
  return {
    ...commonSettings(env),
    ...gatewaySettings(env),
    ...dashboardSettings(env),
    ...paymentsSettings(env),
    ...routingRiskSettings(env),
    ...ledgerSettings(env),
    ...payoutsSettings(env),
    ...webhooksSettings(env),
  };
}

/** What a part started on its own needs besides Postgres and the peers it calls. */
export interface PartNeeds {
  /** Parts that publish or consume events need NATS; the gateway does not (false). */
  nats: boolean;
  /**
   * The webhooks part on its own needs WEBHOOK_SECRET_KEY: without it every endpoint's signing
   * secret would be stored readable by anyone with a database dump (in one process it only warns).
   */
  webhookSecretKey?: boolean;
}

/**
 * A part started on its own needs Postgres, NATS (unless `needs` says not) and the gRPC addresses of
 * the peers it calls. Every missing one is reported in one error, not the first alone.
 */
export function requireForPart(
  config: Config, part: PartName, peers: readonly ServiceName[], needs: PartNeeds = { nats: true },
): void {
  const missing = [
    ...(config.databaseUrl ? [] : ['DATABASE_URL']),
    ...(config.natsUrl || !needs.nats ? [] : ['NATS_URL']),
    ...peers.filter((peer) => !config.peers[peer]).map(peerVariable),
    // Parts refuse callers without a credential, so a lone part must have one to call or be called.
    ...(config.internalToken ? [] : ['INTERNAL_TOKEN']),
    ...(config.webhookSecretKey || !needs.webhookSecretKey ? [] : ['WEBHOOK_SECRET_KEY']),
  ];
  if (missing.length === 0) return;
  const calls = peers.length > 0 ? `; <PART>_URL is the gRPC address of a part it calls (${peers.join(', ')})` : '';
  const key = missing.includes('WEBHOOK_SECRET_KEY')
    ? '; WEBHOOK_SECRET_KEY encrypts endpoint signing secrets at rest (32 bytes, e.g. `openssl rand -hex 32`; never change it once set)'
    : '';
  throw new MissingVariablesError(missing, `to run ${part} on its own${calls}${key}`);
}
