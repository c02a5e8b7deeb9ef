import type { Clock } from '../../services/platform/clock.js';
import { createPool, type Pool } from '../../services/platform/db.js';
import { isInternalType } from '../../services/platform/internal-events.js';
import { type EventEnvelope } from '../../services/contract/index.js';
import { startTestStack, type TestStack } from './stack.js';

/** The in-process stack with every event it publishes recorded, and a pool on the payments schema. */
export interface RecordedStack {
  stack: TestStack;
  /** Every event published since start, in arrival order. */
  seen: EventEnvelope[];
  paymentsPool: Pool;
  /** The public events of a payment (not the internal ones beside them), once all of `types` have arrived (or after `waitMs`). */
  eventsOf(paymentId: string, types: string[], waitMs: number): Promise<EventEnvelope[]>;
  close(): Promise<void>;
}

/** `consumer` names the test's durable consumer, so two test files never share one. */
export async function startRecordedStack(consumer: string, opts: { clock?: Clock } = {}): Promise<RecordedStack> {
  const stack = await startTestStack(opts);
  const seen: EventEnvelope[] = [];
  const filter = stack.testBus.nats ? `${stack.testBus.nats.subjectPrefix}.>` : '>';
  const sub = await stack.testBus.bus.consume(consumer, [filter], async (event) => {
    seen.push(event);
  });
  const paymentsPool = createPool(stack.db.url, 'payments', 4);
  return {
    stack,
    seen,
    paymentsPool,
    async eventsOf(paymentId, types, waitMs) {
      const mine = () => seen.filter((e) => !isInternalType(e.type) && (e.data.object as { id: string }).id === paymentId);
      const deadline = Date.now() + waitMs;
      while (!types.every((t) => mine().some((e) => e.type === t)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      return mine();
    },
    async close() {
      await sub.stop();
      await paymentsPool.end();
      await stack.close();
    },
  };
}
