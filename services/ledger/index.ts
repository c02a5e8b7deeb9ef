// ledger: transactions, balances and settlements (LedgerService). Owns schema ledger; records the
// internal payment.decided, refund.settled, payout.settled and dispute.funds_moved events (for one
// version also the public payment, refund and payout outcomes) and emits settlement.created.
// docs/ledger.md describes it.
import { LedgerService } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { measuredBus, type Subscription } from '../platform/bus/index.js';
import { every } from '../platform/every.js';
import { assemblePart, createRelay, type ServiceDeps, type ServicePart } from '../platform/part.js';
import type { PartInfo } from '../platform/standalone.js';
import { IN_FLIGHT, createLedgerConsumer } from './consumer.js';
import { createDemoSettlement } from './demo-settlement.js';
import { routes } from './service.js';
import { createSettlementStore } from './settlement-store.js';
import { createSettlementIngestion } from './settlements.js';
import { createLedgerStore } from './store.js';

export const PART: PartInfo = { name: 'ledger', schema: 'ledger', dir: 'services/ledger' };

/** The durable consumer's name: every ledger replica shares it, so each event is applied by one. */
export const CONSUMER = 'ledger';

export { TWIN_WAIT_MS, createLedgerConsumer } from './consumer.js';

export function build(deps: ServiceDeps): ServicePart {
  const relay = createRelay(deps);
  const handle = createLedgerConsumer({ ...deps, waitMs: deps.config.ledgerRecordWaitMs });
  const ingestion = createSettlementIngestion({ pool: deps.pool, relay });
  const demo = createDemoSettlement({
    pool: deps.pool, ingestion, logger: deps.logger, cutoffMs: deps.config.settlementCutoffMs,
  });
  const sweep = every(deps.config.settlementSweepMs, 'demo settlement cycle', deps.logger, () => {
    const now = deps.clock.now();
    return demo.runCycle(now, now);
  });
  let subscription: Subscription | undefined;
  return assemblePart(deps, {
    name: PART.name,
    services: [LedgerService.typeName],
    routes: routes({
      store: createLedgerStore(deps.pool),
      settlements: createSettlementStore(deps.pool),
      ingestion,
      demo,
      clock: deps.clock,
    }),
    relay,
    async start() {
      // One subject for the whole stream: NATS 2.9 takes a single filter subject, and the legacy
      // reader still needs the public outcomes. Events that move no money (and the ledger's own
      // settlement.created) are passed over by the handler.
      subscription = await measuredBus(deps.metrics, deps.bus).consume(CONSUMER, [`${deps.config.natsSubjectPrefix}.>`], (event) => handle(event), {
        concurrency: IN_FLIGHT,
      });
      sweep.start();
    },
    async stop() {
      await sweep.stop();
      await subscription?.stop();
    },
  });
}
