// Returning a late charge: a provider reported a success for an attempt recorded failed, after the
// payment had moved on (failed over and succeeded elsewhere, or failed). That charge is not the
// payment's, so it goes back to the customer at that provider: refunded, or released when only
// authorized, under one operation id per attempt (`<attempt id>_return`), so a repeat after a lost
// answer, a second notification or another replica's round never returns it twice. The merchant
// is told by payment.late_charge_returned and the payment's timeline (docs/decisions/2026-12-07-a-late-success.md, "A late success").
import { create } from '@bufbuild/protobuf';
import { ScopeSchema } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { formatMoney, minorToJson } from '../../contract/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/db.js';
import { withDeadline } from '../../platform/deadline.js';
import type { Logger } from '../../platform/logger.js';
import type { ConnectorRegistry, HoldResult } from '../../connectors/index.js';
import { commitChange, type PaymentsStore } from '../payments/index.js';
import { lateChargeMoved } from './moved.js';
import type { LateCharge } from './late-charge.js';
import { createLateChargeStore } from './store.js';

export interface LateChargeDeps {
  store: PaymentsStore;
  pool: Pool;
  connectors: ConnectorRegistry;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  providerTimeoutMs: number;
}

/** The provider's idempotency key and reference of an attempt's return. */
const returnOperationId = (attemptId: string) => `${attemptId}_return`;

export function createLateCharges(deps: LateChargeDeps) {
  const charges = createLateChargeStore(deps.pool);

  /** The provider's answer to the return; undefined when it gave none (asked again next round). */
  async function sendReturn(c: LateCharge): Promise<HoldResult | undefined> {
    const connector = deps.connectors.forProvider(c.providerCode);
    const account = { providerCode: c.providerCode, id: c.providerAccountId };
    const common = { account, paymentId: c.paymentId, providerPaymentId: c.providerPaymentId, amount: c.amount, currency: c.currency };
    if (!connector) return { outcome: 'hard_decline', providerCode: null, providerMessage: 'No connector for this provider is installed here' };
    const release = connector.cancel?.bind(connector);
    // A provider without holds (the demo providers) holds nothing to release, as for a cancel (held-funds.ts).
    if (c.held && !release) return { outcome: 'success', providerCode: null, providerMessage: 'Nothing is held at this provider' };
    try {
      if (c.held) return await withDeadline(deps.providerTimeoutMs, (signal) => release!({ ...common, operationId: returnOperationId(c.attemptId), signal }));
      const r = await withDeadline(deps.providerTimeoutMs, (signal) => connector.refund({
        ...common, refundId: returnOperationId(c.attemptId), reason: 'late success after failover', signal,
      }));
      return { outcome: r.outcome, providerCode: r.providerCode, providerMessage: r.providerMessage };
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, attempt_id: c.attemptId }, 'late charge: return outcome unknown, will ask again');
      return undefined;
    }
  }

  /** Returns one charge; true when its return was settled (returned or refused) by this call. */
  async function returnOne(c: LateCharge): Promise<boolean> {
    const answer = await sendReturn(c);
    // No answer, or the provider's own trouble: the same operation is sent again next round.
    if (!answer || answer.outcome === 'technical_error' || answer.outcome === 'provider_unavailable') return false;
    const returned = answer.outcome === 'success';
    const scope = create(ScopeSchema, { merchantId: c.merchantId, projectId: c.projectId, mode: c.mode });
    const at = deps.clock.now();
    const settled = await deps.store.transaction(async (tx) => {
      const payment = await deps.store.getForUpdate(tx, scope, c.paymentId);
      if (!payment) return false;
      const message = [answer.providerCode, answer.providerMessage].filter(Boolean).join(': ') || null;
      if (!(await charges.settle(tx, c.attemptId, returned ? 'returned' : 'return_refused', message, at))) return false;
      const what = `${formatMoney(c.amount, c.currency)} charged late at ${c.providerCode}`;
      const moved = returned ? lateChargeMoved(c, 'returned', at) : undefined;
      const data = { attempt_id: c.attemptId, provider_payment_id: c.providerPaymentId, amount: minorToJson(c.amount), held: c.held, provider_code: answer.providerCode };
      await commitChange(deps.store, {
        payment, attempts: [], at,
        timeline: [returned
          ? { type: 'attempt.late_charge_returned', attemptId: c.attemptId, title: `${what} ${c.held ? 'released' : 'refunded'}`, data }
          : { type: 'attempt.late_charge_refused', attemptId: c.attemptId, title: `${c.providerCode} refused to return ${what}`, data: { ...data, provider_message: answer.providerMessage } }],
        events: returned ? ['payment.late_charge_returned'] : [],
        // The ledger books the refund beside the charge; a released hold moved nothing.
        internal: moved ? [moved] : [],
      }, { tx });
      return true;
    });
    if (settled) deps.relay.kick();
    if (settled && !returned) deps.logger.error({ attempt_id: c.attemptId, payment_id: c.paymentId }, 'late charge: the provider refused its return; the customer was charged twice');
    return settled;
  }

  /** Returns every late charge still to return (after a notification, and each reconciliation round). */
  async function returnDue(limit = 100): Promise<number> {
    let settled = 0;
    for (const c of await charges.returning(limit)) if (await returnOne(c)) settled++;
    return settled;
  }

  return { record: charges.insert, returnDue };
}

export type LateCharges = ReturnType<typeof createLateCharges>;
