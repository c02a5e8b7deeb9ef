// The sandbox's payment scenarios: what each demo provider on the route does, by its position.
// One table feeds the demo providers, the create-time check and GET /v1/test/scenarios, so the
// published descriptions cannot drift from what the providers actually play. The names are the
// contract's (services/contract/enums.ts).
import type { PAYMENT_SCENARIOS as CONTRACT_SCENARIOS, ValueOf } from '../contract/enums.js';

/** What one demo provider does with one attempt. */
export type Play =
  | 'approve'
  | 'soft_decline'
  | 'hard_decline'
  | 'technical_error'
  | 'unavailable'
  /** No answer in time; the status query says the provider never received the payment. */
  | 'timeout_not_received'
  /** No answer in time; the status query says the provider approved it. */
  | 'timeout_approved';

export interface Scenario {
  name: ValueOf<typeof CONTRACT_SCENARIOS>;
  description: string;
  /** The first provider on the route. */
  first: Play;
  /** Every later provider on the route. */
  others: Play;
}

export const PAYMENT_SCENARIOS: readonly Scenario[] = [
  {
    name: 'success',
    description:
      'The first provider on the route approves: one attempt, succeeded; the payment is successful '
      + '(authorized when capture_method is manual). Payments without test_scenario behave the same. On the '
      + 'asynchronous rails (open_banking, qr, bank_transfer) the provider first asks for the customer: the payment '
      + 'is processing with next_action until the customer approves, declines or lets it expire on the sandbox page.',
    first: 'approve',
    others: 'approve',
  },
  {
    name: 'failover',
    description:
      'The first provider soft-declines (provider_code do_not_honor) and the orchestrator fails over; the second '
      + 'provider approves. Two attempts: the first failed with outcome soft_decline, the second succeeded; the '
      + 'payment is successful. With a single eligible provider the payment fails with code soft_decline, category soft.',
    first: 'soft_decline',
    others: 'approve',
  },
  {
    name: 'timeout',
    description:
      'The first provider does not answer in time and its status query says it never received the payment, so '
      + 'nobody was charged and the orchestrator fails over; the second provider approves. Two attempts: the first '
      + 'failed with outcome timeout, the second succeeded; the payment is successful. With a single eligible '
      + 'provider the payment fails with code provider_timeout, category technical.',
    first: 'timeout_not_received',
    others: 'approve',
  },
  {
    name: 'timeout_recovered',
    description:
      'The first provider does not answer in time, but its status query shows it approved the payment. No failover '
      + 'happens and the customer is charged once: one attempt, succeeded with outcome success; the payment is '
      + 'successful.',
    first: 'timeout_approved',
    others: 'approve',
  },
  {
    name: 'unavailable',
    description:
      'The first provider is unavailable (provider_code service_unavailable) and the orchestrator fails over; the '
      + 'second provider approves. Two attempts: the first failed with outcome provider_unavailable, the second '
      + 'succeeded; the payment is successful. With a single eligible provider the payment fails with code '
      + 'provider_unavailable, category technical.',
    first: 'unavailable',
    others: 'approve',
  },
  {
    name: 'hard_decline',
    description:
      'The first provider hard-declines (provider_code stolen_card). A hard decline is final: no other provider is '
      + 'tried. One attempt, failed with outcome hard_decline; the payment fails with code hard_decline, category hard, decline_reason stolen_card.',
    first: 'hard_decline',
    others: 'approve',
  },
  {
    name: 'soft_decline',
    description:
      'Every eligible provider soft-declines (provider_code do_not_honor), one attempt each, all failed with outcome '
      + 'soft_decline; the payment fails with code soft_decline, category soft, decline_reason do_not_honor.',
    first: 'soft_decline',
    others: 'soft_decline',
  },
  {
    name: 'all_fail',
    description:
      'Every eligible provider fails with a technical error (provider_code processing_error), one attempt each, all '
      + 'failed with outcome technical_error; the payment fails with code provider_error, category technical.',
    first: 'technical_error',
    others: 'technical_error',
  },
  {
    name: 'dispute',
    description:
      'The first provider approves, as with success; a few seconds later the cardholder disputes the payment: the '
      + 'demo provider opens a chargeback (reason fraudulent, status needs_response, the amount and a 15 fee withdrawn, '
      + 'evidence due in 7 days), with dispute.created. Submitted evidence is decided a few seconds later: a '
      + 'shipping_tracking_number, or uncategorized_text mentioning "tracking", wins (funds reinstated); anything '
      + 'else loses. Accepting closes it as accepted.',
    first: 'approve',
    others: 'approve',
  },
  {
    name: 'late_success',
    description:
      'As timeout: the first provider does not answer in time and its status query says it never received the '
      + 'payment, so the orchestrator fails over and the second provider approves. Then the first provider reports '
      + 'that it had charged after all: the payment stays as it is, and that late charge is refunded at the first '
      + 'provider automatically (released when only authorized) within a reconciliation round, with '
      + 'payment.late_charge_returned; the timeline tells both. The customer is charged once.',
    first: 'timeout_not_received',
    others: 'approve',
  },
];

const BY_NAME = new Map<string, Scenario>(PAYMENT_SCENARIOS.map((s) => [s.name, s]));

/** What the provider at 1-based route position `attemptNumber` plays; no scenario plays `success`. */
export function playFor(scenario: string | undefined, attemptNumber: number): Play {
  const s = BY_NAME.get(scenario ?? 'success');
  if (!s) throw new Error(`unknown test scenario "${scenario}"`);
  return attemptNumber === 1 ? s.first : s.others;
}
