// The internal events a dispute's money reaches the ledger by, as payments writes them
// (services/platform/internal-events/dispute-funds-moved.ts), and the payment.decided of the payment
// they name: for the ledger's tests, which publish them without a payments part making disputes.
import { randomBytes } from 'node:crypto';
import { eventSubject, type EventEnvelope } from '../../services/contract/envelope.js';
import type { EventBus } from '../../services/platform/bus/index.js';
import { newId } from '../../services/platform/ids.js';
import {
  disputeFundsMovedObject, internalEnvelope, paymentDecidedObject, type DisputeFundsMoved, type PaymentDecided,
} from '../../services/platform/internal-events.js';

export interface Scope { mode: string; merchantId: string; projectId: string }

/** A successful card payment of `amount` (fee 100) at `account`, decided now. */
export function paymentDecided(scope: Scope, paymentId: string, amount: number, account = 'pac_demo_beta'): EventEnvelope {
  const at = new Date();
  const object: PaymentDecided = {
    version: 1, id: paymentId, status: 'successful', amount: BigInt(amount), captured_amount: BigInt(amount), currency: 'EUR',
    fee_amount: 100n,
    payment_method: 'card', country: 'NL', provider_id: 'prv_demo_beta', provider_code: 'demo_beta', provider_name: 'Demo Beta',
    provider_account_id: account, provider_payment_id: `pp_${paymentId}`, processing_time_ms: 5, failure_code: null,
    failure_category: null, decided_at: at.toISOString(),
  };
  return internalEnvelope(newId('evt', at), scope, at, paymentDecidedObject(object));
}

export interface MovedFunds {
  /** The movement's id (`dpm_…`); a fresh one when absent. */
  id?: string;
  disputeId: string;
  paymentId: string;
  kind: 'withdrawal' | 'reinstatement';
  amount: number;
  fee?: number;
  providerDisputeId?: string | null;
  providerAccountId?: string | null;
  providerName?: string | null;
}

/** The movement's dispute.funds_moved, under a fresh event id each call (a re-publish of one movement is another event). */
export function fundsMoved(scope: Scope, m: MovedFunds): EventEnvelope {
  const at = new Date();
  const object: DisputeFundsMoved = {
    version: 1, id: m.id ?? `dpm_${randomBytes(8).toString('hex')}`, dispute_id: m.disputeId, payment_id: m.paymentId,
    kind: m.kind, amount: BigInt(m.amount), fee_amount: m.kind === 'withdrawal' ? BigInt(m.fee ?? 0) : 0n, currency: 'EUR',
    reason: 'fraudulent', stage: 'chargeback', provider_id: null, provider_code: null, provider_name: m.providerName ?? null,
    provider_account_id: m.providerAccountId ?? null, provider_dispute_id: m.providerDisputeId ?? null,
    moved_at: at.toISOString(),
  };
  return internalEnvelope(newId('evt', at), scope, at, disputeFundsMovedObject(object));
}

/** Publishes events on a bus with the stream's subject prefix, as the parts' relays do. */
export async function publishAll(bus: EventBus, subjectPrefix: string, events: EventEnvelope[]): Promise<void> {
  for (const e of events) {
    await bus.publish({ subject: eventSubject(subjectPrefix, e.type), msgId: e.id, data: Buffer.from(JSON.stringify(e)) });
  }
}
