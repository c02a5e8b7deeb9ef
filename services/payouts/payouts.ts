import type { Client } from '@connectrpc/connect';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import type { LedgerService } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import type { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { formatMoney, payoutJson } from '../contract/index.js';
import type { Clock } from '../platform/clock.js';
import type { Queryable } from '../platform/db.js';
import { isBindingConflict, type Binding } from '../platform/idempotency-bindings.js';
import { newId } from '../platform/ids.js';
import { internalEnvelope, payoutSettledObject } from '../platform/internal-events.js';
import { enqueueEvent } from '../platform/outbox.js';
import { serviceError } from '../contract/index.js';
import { cost, payoutToProto, type PayoutRecord } from './model.js';
import { payoutSettled } from './payout-settled.js';
import { INSUFFICIENT_FUNDS } from './providers.js';
import type { PayoutStore } from './store.js';

/**
 * Creating and cancelling payouts. A live payout spends funds providers have already settled to
 * the merchant (the ledger's settled_by_providers), never money still awaiting settlement: the
 * service is not a custodian and cannot advance funds. The check and the insert are one step under
 * the scope's funds row lock, so of two concurrent payouts that each fit but not both, one is
 * refused. Test-mode money is simulated and settles a day late, so a sandbox payout is not refused
 * for settled funds (settledFundsOnly decides by mode); it draws on what test payments processed
 * instead: without a test scenario, one larger than that (less what payouts committed) fails at once
 * with insufficient_funds (sandboxFundsCheck). It still commits and releases its funds the same way.
 */

export interface PayoutInput {
  amount: bigint;
  currency: string;
  destination: { type: string; token: string | null; display: string; holderName: string | null; country: string | null };
  description: string | null;
  reference: string | null;
  metadata: Record<string, unknown>;
  testScenario: string | null;
}

export interface PayoutsDeps {
  store: PayoutStore;
  routing: Client<typeof RoutingService>;
  ledger: Client<typeof LedgerService>;
  clock: Clock;
  relay: { kick(): void };
  /** The live hold (PAYOUT_HOLD_MS); test mode has its own, shorter by default. */
  holdMs: number;
  testHoldMs?: number;
  /** How long a payout's Idempotency-Key stays bound to it (IDEMPOTENCY_TTL_HOURS). */
  idempotencyTtlMs: number;
}

/**
 * Writes a payout event; the payload is the payout as the API shows it. An outcome
 * (payout.successful, payout.failed) also writes its internal payout.settled, in the same
 * transaction, which the ledger records the payout from.
 */
export async function emitPayout(tx: Queryable, p: PayoutRecord, type: string, at: Date): Promise<void> {
  await enqueueEvent(tx, {
    id: newId('evt', at),
    type,
    mode: p.mode,
    merchant_id: p.merchantId,
    project_id: p.projectId,
    created_at: at.toISOString(),
    data: { object: payoutJson(payoutToProto(p)) },
  });
  if (type === 'payout.successful' || type === 'payout.failed') {
    await enqueueEvent(tx, internalEnvelope(newId('evt', at), p, at, payoutSettledObject(payoutSettled(p, type, at))));
  }
}

/** The funds rule (pure): how much of the settled funds is left for a new payout. */
export function availableFunds(settledByProviders: bigint, committed: bigint): bigint {
  return settledByProviders - committed;
}

/**
 * Whether a scope's payouts must fit in its settled funds: the one place the mode decides it. Live
 * money is real and held by providers; test money is simulated, and a sandbox that settles T+1
 * would refuse every first payout for a day. Any mode but test keeps the rule.
 */
export function settledFundsOnly(mode: string): boolean {
  return mode !== 'test';
}

/**
 * Whether a payout is checked against what the scope's test payments processed (processed_net): a
 * test payout without a scenario. A scenario says what the demo provider does, so it plays as asked
 * (`success` sends any amount).
 */
export function sandboxFundsCheck(mode: string, testScenario: string | null): boolean {
  return mode === 'test' && !testScenario;
}

/** Refuses a payout whose amount and fee do not fit in what is available (409: it may fit later). */
function refuseBeyond(payout: PayoutRecord, available: bigint): void {
  if (cost(payout) <= available) return;
  const money = (v: bigint) => formatMoney(v, payout.currency);
  throw serviceError(
    'insufficient_settled_funds',
    `This payout needs ${money(cost(payout))} (amount ${money(payout.amount)} plus fee ${money(payout.feeAmount)}); ` +
      `${money(available > 0n ? available : 0n)} of the funds providers settled is available.`,
    { param: 'amount' },
  );
}

/**
 * Fails a test payout whose amount and fee do not fit in what test payments processed, as a provider
 * would refuse it but at once: never sent, so it commits no funds and costs no fee. False if it fits.
 */
function failBeyondTestFunds(payout: PayoutRecord, available: bigint): boolean {
  if (cost(payout) <= available) return false;
  const money = (v: bigint) => formatMoney(v, payout.currency);
  payout.status = 'failed';
  payout.failure = {
    ...INSUFFICIENT_FUNDS,
    message: `This test payout needs ${money(cost(payout))} (amount plus fee); the test payments processed leave `
      + `${money(available > 0n ? available : 0n)}. Take more test payments, or send test_scenario success to pay out any amount.`,
  };
  payout.feeAmount = 0n;
  return true;
}

export function createPayouts(deps: PayoutsDeps) {
  const { store, clock } = deps;

  /**
   * A keyed payout is created once: a retry finds its key bound to the payout and answers it as it
   * stands. The payout is durable in one commit with its key, long before its provider sees it.
   */
  async function create(scope: Scope, input: PayoutInput, binding?: Binding): Promise<PayoutRecord> {
    const bound = binding && (await store.boundResource(scope, binding, clock.now()));
    if (bound) return (await store.get(scope, bound))!;
    try {
      return await createOnce(scope, input, binding);
    } catch (err) {
      // A request with the same key committed its payout first: this one wrote nothing.
      const winner = binding && isBindingConflict(err) && (await store.boundResource(scope, binding, clock.now()));
      if (winner) return (await store.get(scope, winner))!;
      throw err;
    }
  }

  async function createOnce(scope: Scope, input: PayoutInput, binding?: Binding): Promise<PayoutRecord> {
    const createdAt = clock.now();
    const id = newId('po', createdAt);
    // Every read before any lock: settled funds only grow with new settlements, test balances are
    // simulated, and the plan is advice about providers. None is a reason to hold the funds row
    // across a network call.
    const [plan, funds, balances] = await Promise.all([
      deps.routing.planPayout({
        scope,
        amount: input.amount,
        currency: input.currency,
        destinationType: input.destination.type,
        country: input.destination.country ?? undefined,
      }),
      settledFundsOnly(scope.mode) ? deps.ledger.getSettledFunds({ scope, currency: input.currency }) : undefined,
      sandboxFundsCheck(scope.mode, input.testScenario) ? deps.ledger.getBalances({ scope }) : undefined,
    ]);
    const chosen = plan.candidates[0];
    const payout: PayoutRecord = {
      id,
      merchantId: scope.merchantId,
      projectId: scope.projectId,
      mode: scope.mode,
      status: 'created',
      amount: input.amount,
      currency: input.currency,
      destination: input.destination,
      description: input.description,
      reference: input.reference,
      metadata: input.metadata,
      testScenario: input.testScenario,
      providerId: chosen?.providerId ?? null,
      providerCode: chosen?.providerCode ?? null,
      providerName: chosen?.providerName ?? null,
      providerAccountId: chosen?.providerAccountId ?? null,
      providerPayoutId: null,
      routingRule: plan.rule || null,
      feeAmount: chosen?.fee ?? 0n,
      failure: null,
      sendAfter: new Date(createdAt.getTime() + (scope.mode === 'test' ? deps.testHoldMs ?? deps.holdMs : deps.holdMs)),
      sentAt: null,
      createdAt,
      updatedAt: createdAt,
    };
    await store.transaction(async (tx) => {
      if (binding) await store.bind(tx, scope, { ...binding, resourceId: id }, createdAt, deps.idempotencyTtlMs);
      const committed = await store.lockFunds(tx, scope, input.currency);
      if (funds) refuseBeyond(payout, availableFunds(funds.settledByProviders, committed));
      if (!chosen) {
        // Like a payment with no eligible provider: a failed resource, not an HTTP error; it never
        // queued, so it commits no funds and emits only payout.failed.
        payout.status = 'failed';
        payout.failure = {
          code: 'no_eligible_provider', category: 'policy',
          message: 'No provider connected to this account can send this payout.',
        };
        await store.insert(tx, payout);
        await emitPayout(tx, payout, 'payout.failed', createdAt);
        return;
      }
      const processed = balances?.balances.find((b) => b.currency === input.currency)?.processedNet ?? 0n;
      if (balances && failBeyondTestFunds(payout, availableFunds(processed, committed))) {
        await store.insert(tx, payout);
        await emitPayout(tx, payout, 'payout.failed', createdAt);
        return;
      }
      await store.insert(tx, payout);
      await store.commitFunds(tx, payout, cost(payout));
      await emitPayout(tx, payout, 'payout.created', createdAt);
    });
    deps.relay.kick();
    return payout;
  }

  /** Only a payout still queued can be cancelled; its funds are released at once and payout.cancelled is emitted in the same commit. */
  async function cancel(scope: Scope, id: string): Promise<PayoutRecord> {
    const cancelled = await store.transaction(async (tx) => {
      const payout = await store.getForUpdate(tx, scope, id);
      if (!payout) throw serviceError('resource_not_found', `No payout ${id}`, { param: 'id' });
      if (payout.status !== 'created') {
        throw serviceError(
          'invalid_state_transition',
          `Payout ${id} is ${payout.status}; only a payout not yet sent to its provider (created) can be cancelled.`,
          { param: 'id' },
        );
      }
      await store.lockFunds(tx, scope, payout.currency);
      payout.status = 'cancelled';
      payout.updatedAt = clock.now();
      await store.save(tx, payout);
      await store.commitFunds(tx, payout, -cost(payout));
      await emitPayout(tx, payout, 'payout.cancelled', payout.updatedAt);
      return payout;
    });
    deps.relay.kick();
    return cancelled;
  }

  return {
    create,
    cancel,
    get: (scope: Scope, id: string) => store.get(scope, id),
    list: store.list,
  };
}

export type Payouts = ReturnType<typeof createPayouts>;
