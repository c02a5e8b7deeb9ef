// A plan's decisions are written after it is answered, many in one statement: the payment does not
// wait for their round trip and commit. What a crash between answer and write loses is the
// decisions' rows alone: the payment keeps the decision's summary (ids, rule, skipped accounts,
// risk score) on its own row and timeline, and no money depends on them (docs/routing.md).
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_MAX_BATCH, createBatcher } from '../platform/batcher.js';
import type { Logger } from '../platform/logger.js';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import type { RiskInput } from '../../proto/gen/svc/risk/v1/risk_pb.js';
import { velocityKeys, type Decision, type RoutingRiskStore } from './store.js';

type Keys = ReturnType<typeof velocityKeys>;

export interface DecisionWriter {
  /** Queues the plan's decisions for the next batch; never throws (a failed write is logged). */
  record(decision: Decision): void;
  /**
   * Resolves once this replica's queued decisions sharing a velocity key with the payment (same
   * project and mode) are written: a velocity read counts every earlier decision, as when each was
   * written before its answer. At once when none is queued.
   */
  written(scope: Scope, input: RiskInput): Promise<void>;
  /** Waits for every queued decision to be written or given up (a graceful stop). */
  flush(): Promise<void>;
}

const sameScope = (a: Scope, b: Scope) => a.merchantId === b.merchantId && a.projectId === b.projectId && a.mode === b.mode;
const sharesKey = (a: Keys, b: Keys) =>
  (a.customer !== null && a.customer === b.customer) || (a.fingerprint !== null && a.fingerprint === b.fingerprint)
  || (a.ip !== null && a.ip === b.ip);

/**
 * How long a lone plan's decisions wait for company: a steady trickle of payments shares one
 * statement. A velocity read that needs them (written) cuts the wait short.
 */
const DECISION_WAIT_MS = 50;

/**
 * While one batch is written the next gathers. `testDelayMs` (ROUTING_DECISION_WRITE_TEST_DELAY_MS,
 * 0 unless a test sets it) holds each batch before its write, so a test can kill the part between.
 */
export function decisionWriter(store: Pick<RoutingRiskStore, 'recordDecisions'>, logger: Logger, testDelayMs = 0): DecisionWriter {
  const pending = new Map<Promise<void>, { scope: Scope; keys: Keys }>();
  const write = createBatcher(async (batch: Decision[]) => {
    if (testDelayMs > 0) await sleep(testDelayMs);
    await store.recordDecisions(batch);
    return batch.map(() => undefined);
  }, DEFAULT_MAX_BATCH, DECISION_WAIT_MS);
  return {
    record(decision) {
      const written: Promise<void> = write(decision)
        .catch((err) => {
          logger.warn({ err: (err as Error).message, payment: decision.input.paymentId }, 'routing and risk decisions not recorded');
        })
        .finally(() => pending.delete(written));
      pending.set(written, { scope: decision.scope, keys: velocityKeys(decision.scope, decision.input) });
    },
    async written(scope, input) {
      if (pending.size === 0) return;
      const keys = velocityKeys(scope, input);
      const waits = [...pending].filter(([, p]) => sameScope(p.scope, scope) && sharesKey(p.keys, keys)).map(([w]) => w);
      if (waits.length === 0) return;
      write.now();
      await Promise.all(waits);
    },
    async flush() {
      write.now();
      await Promise.all([...pending.keys()]);
    },
  };
}
