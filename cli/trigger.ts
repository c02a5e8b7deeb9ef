import { EVENT_TYPES, type EventType } from '../services/contract/enums.js';
import { formatMoney } from '../services/contract/money.js';
import { CliError, type ManagementClient } from './client.js';

// `svc trigger <event-type>`: a real sandbox flow through the public API (test key) that makes the
// deployment emit that event, with the sandbox scenario that forces the outcome. It prints the
// objects it created; `svc listen` (or an endpoint) receives the events they emit.

type Api = ManagementClient;
type Created = Record<string, any>;

const AMOUNT = 1000;
const CURRENCY = 'EUR';
/** A demo beneficiary: the demo payout providers accept any token (no raw account number). */
const DESTINATION = { type: 'bank_account', token: 'ben_demo_svc_trigger', display: 'DE89 •••• 3000', holder_name: 'Ada Lovelace', country: 'DE' };

function pay(api: Api, type: string, body: Record<string, unknown> = {}): Promise<Created> {
  return api.request('POST', '/payments', {
    amount: AMOUNT, currency: CURRENCY, payment_method: 'card', test_scenario: 'success',
    description: `svc trigger ${type}`, metadata: { svc_trigger: type }, ...body,
  });
}

const refund = (api: Api, payment: Created, scenario: string): Promise<Created> =>
  api.request('POST', `/payments/${payment.id}/refund`, { test_scenario: scenario, reason: 'svc trigger' });

// A payout spends funds the demo providers settled: a payment first brings them in (twice the
// payout, which also covers its fee).
async function payout(api: Api, type: string, scenario: string): Promise<Created[]> {
  const funding = await pay(api, type, { amount: AMOUNT * 2, description: `svc trigger ${type}: funds for the payout` });
  const created = await api.request('POST', '/payouts', {
    amount: AMOUNT, currency: CURRENCY, destination: DESTINATION, test_scenario: scenario,
    description: `svc trigger ${type}`, metadata: { svc_trigger: type },
  });
  return [funding, created];
}

/** How long `svc trigger dispute.*` waits for the demo provider to open the payment's chargeback. */
const DISPUTE_WAIT_MS = 30_000;

// The `dispute` scenario's payment succeeds and its chargeback opens a few seconds later
// (docs/disputes.md): the flow waits for it, then acts on it as the event type asks.
async function disputed(api: Api, type: string): Promise<Created[]> {
  const payment = await pay(api, type, { test_scenario: 'dispute' });
  const until = Date.now() + DISPUTE_WAIT_MS;
  while (Date.now() < until) {
    const list = await api.request('GET', `/disputes?payment_id=${encodeURIComponent(payment.id)}`);
    if (list.data?.length > 0) return [payment, list.data[0]];
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new CliError(`The demo provider opened no dispute on ${payment.id} within ${DISPUTE_WAIT_MS / 1000} s.`);
}

interface Flow {
  run(api: Api, type: string): Promise<Created[]>;
  /** What happens after the command returns, when the event is not emitted at once. */
  later?: string;
}

const PAYOUT_LATER = 'the payout is sent to the demo provider once the deployment\'s payout hold (PAYOUT_TEST_HOLD_MS, shown as the payout\'s route.scheduled_for) has passed; its outcome event follows then';

export const FLOWS: Record<EventType, Flow> = {
  'payment.created': { run: async (api, t) => [await pay(api, t)] },
  'payment.successful': { run: async (api, t) => [await pay(api, t)] },
  'payment.failed': { run: async (api, t) => [await pay(api, t, { test_scenario: 'hard_decline' })] },
  'payment.processing': {
    run: async (api, t) => [await pay(api, t, { payment_method: 'open_banking' })],
    later: 'open the payment\'s next_action URL to complete or fail it on the sandbox page',
  },
  'payment.authorized': { run: async (api, t) => [await pay(api, t, { capture_method: 'manual' })] },
  'payment.cancelled': {
    async run(api, t) {
      const authorized = await pay(api, t, { capture_method: 'manual' });
      return [await api.request('POST', `/payments/${authorized.id}/cancel`, { reason: 'svc trigger' })];
    },
  },
  'payment.refunded': { run: async (api, t) => { const p = await pay(api, t); return [p, await refund(api, p, 'success')]; } },
  // A late success needs a provider that reports one after failover; the sandbox's demo providers
  // do not yet (docs/decisions/2026-12-07-a-late-success.md, "A late success"), so the webhooks test API emits a sample event.
  'payment.late_charge_returned': {
    run: async (api, t) => [{ object: 'event', ...(await api.request('POST', '/webhooks/test', { event_type: t })) }],
    later: 'a sample event (its payment exists nowhere): real ones follow a provider\'s success reported after failover',
  },
  'refund.successful': { run: async (api, t) => { const p = await pay(api, t); return [p, await refund(api, p, 'success')]; } },
  'refund.failed': { run: async (api, t) => { const p = await pay(api, t); return [p, await refund(api, p, 'hard_decline')]; } },
  'payout.created': { run: (api, t) => payout(api, t, 'success') },
  'payout.successful': { run: (api, t) => payout(api, t, 'success'), later: PAYOUT_LATER },
  'payout.failed': { run: (api, t) => payout(api, t, 'hard_decline'), later: PAYOUT_LATER },
  // Cancelled within its hold, before it is sent to the demo provider.
  'payout.cancelled': {
    async run(api, t) {
      const [funding, created] = await payout(api, t, 'success');
      return [funding, await api.request('POST', `/payouts/${created.id}/cancel`)];
    },
  },
  'dispute.created': { run: disputed },
  // Staging evidence (not submitted) updates the dispute.
  'dispute.updated': {
    async run(api, t) {
      const [payment, dispute] = await disputed(api, t);
      return [payment, await api.request('POST', `/disputes/${dispute.id}/evidence`, { uncategorized_text: 'svc trigger', submit: false })];
    },
  },
  'dispute.closed': {
    async run(api, t) {
      const [payment, dispute] = await disputed(api, t);
      return [payment, await api.request('POST', `/disputes/${dispute.id}/accept`)];
    },
  },
  // No API call makes a settlement: the ledger ingests the demo providers' reports on its own cycle
  // (T+1 by default). The webhooks test API emits a sample event instead (docs/decisions.md).
  'settlement.created': {
    run: async (api, t) => [{ object: 'event', ...(await api.request('POST', '/webhooks/test', { event_type: t })) }],
    later: 'a sample event (its settlement exists nowhere): real settlement.created events come from the ' +
      'demo providers\' settlement cycle, a day after a payment (SETTLEMENT_CUTOFF_MS)',
  },
};

export function triggerProblem(type: string): string | undefined {
  return Object.hasOwn(FLOWS, type) ? undefined : `"${type}" is not an event type; one of: ${EVENT_TYPES.join(', ')}`;
}

/** One line per object, for a person; a sandbox page's relative URL is shown against the deployment's base. */
export function objectLine(o: Created, baseUrl: string): string {
  const money = typeof o.amount === 'number' && typeof o.currency === 'string' ? `  ${formatMoney(o.amount, o.currency)}` : '';
  if (o.object === 'event') return `event    ${o.event_id}  sample sent to ${o.deliveries} endpoint(s) and to svc listen`;
  const extra = o.next_action?.url ? `  next_action: ${new URL(o.next_action.url, `${baseUrl}/`).href}` : o.failure
    ? `  failure: ${o.failure.code}${o.failure.decline_reason ? ` (declined as ${o.failure.decline_reason})` : ''}` : '';
  return `${String(o.object ?? 'object').padEnd(8)} ${o.id}  ${o.status}${money}${extra}`;
}

export interface TriggerResult {
  event_type: string;
  objects: Created[];
  later?: string;
}

/** Checks the key is a test key (sandbox flows only), then runs the flow. */
export async function trigger(api: Api, type: EventType): Promise<TriggerResult> {
  const me = await api.request('GET', '/me');
  if (me.mode !== 'test') throw new CliError('svc trigger runs sandbox flows: use a test key (svc_sk_test_…).');
  const flow = FLOWS[type];
  return { event_type: type, objects: await flow.run(api, type), ...(flow.later && { later: flow.later }) };
}
