// payouts: payouts to merchants' beneficiaries (PayoutsService). Owns schema payouts; emits
// payout.created, payout.successful and payout.failed. Calls routing-risk (PlanPayout), the
// ledger (settled funds) and payments (ProviderPayoutsService: licensed providers' payouts).
// docs/ledger.md and docs/connectors.md ("Payouts") describe it.
import type { Client } from '@connectrpc/connect';
import type { LedgerService } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import type { ProviderPayoutsService } from '../../proto/gen/svc/payments/v1/provider_payouts_pb.js';
import { PayoutsService } from '../../proto/gen/svc/payouts/v1/payouts_pb.js';
import type { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { every } from '../platform/every.js';
import { bindingSweep } from '../platform/idempotency-bindings.js';
import { assemblePart, createRelay, type ServiceDeps, type ServicePart } from '../platform/part.js';
import type { PartInfo } from '../platform/standalone.js';
import { createDispatcher } from './dispatcher.js';
import { createLicensedPayoutConnector } from './licensed-payouts.js';
import { createPayouts } from './payouts.js';
import type { PayoutConnector } from './providers.js';
import { routes } from './service.js';
import { createPayoutStore } from './store.js';

// What a payout connector implements (tests' fakes), and the demo one tests can wrap.
export {
  DemoPayoutConnector, type PayoutConnector, type PayoutStatusAnswer, type PayoutStatusQuery, type SendPayoutRequest,
  type SendPayoutResult,
} from './providers.js';

export const PART: PartInfo = { name: 'payouts', schema: 'payouts', dir: 'services/payouts' };

export interface PayoutsDeps extends ServiceDeps {
  routing: Client<typeof RoutingService>;
  ledger: Client<typeof LedgerService>;
  /** Licensed providers' payouts: payments holds their credentials and calls them. */
  payments?: Client<typeof ProviderPayoutsService>;
  /** Payout connectors by provider code that replace the built-in ones (tests' fakes). */
  connectors?: Record<string, PayoutConnector>;
}

export function build(deps: PayoutsDeps): ServicePart {
  const relay = createRelay(deps);
  const store = createPayoutStore(deps.pool);
  const payouts = createPayouts({
    store, routing: deps.routing, ledger: deps.ledger, clock: deps.clock, relay, holdMs: deps.config.payoutHoldMs, testHoldMs: deps.config.payoutTestHoldMs,
    idempotencyTtlMs: deps.config.idempotencyTtlHours * 3_600_000,
  });
  const dispatcher = createDispatcher({
    store, clock: deps.clock, relay, logger: deps.logger, connectors: deps.connectors, timeoutMs: deps.config.providerTimeoutMs,
    licensed: deps.payments && createLicensedPayoutConnector(deps.payments), metrics: deps.metrics,
  });
  const sweep = every(deps.config.payoutSweepMs, 'payout dispatch', deps.logger, () => dispatcher.dispatch(deps.clock.now()));
  const bindings = bindingSweep(deps.pool, deps.clock, deps.logger);
  return assemblePart(deps, {
    name: PART.name,
    services: [PayoutsService.typeName],
    routes: routes(payouts, dispatcher, deps.clock),
    relay,
    async start() {
      sweep.start();
      bindings.start();
    },
    // Before the relay's final drain, so the events of a last dispatch are published too.
    stop: async () => {
      await Promise.all([sweep.stop(), bindings.stop()]);
    },
  });
}
