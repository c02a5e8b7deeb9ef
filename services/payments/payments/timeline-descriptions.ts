// The one home of the payment timeline's descriptions: every entry type the payments part writes
// is told here, in a sentence or two, from the entry's own title and data (and the payment's
// currency, for money). Written with each entry (store.ts), and for entries stored before
// descriptions were, when they are read. Webhook entries are told by the webhooks part.
import { DECLINE_REASON_TEXT, formatMoney, isDeclineReason } from '../../contract/index.js';

export interface DescribedEntry {
  type: string;
  title: string;
  data?: Record<string, unknown>;
}

type Data = Record<string, any>;
type Describe = (data: Data, money: (minor: unknown) => string, title: string) => string;

const ms = (latency: unknown) => (typeof latency === 'number' ? ` in ${latency} ms` : '');
const code = (c: unknown) => (c ? ` (provider code ${c})` : '');
/** "declined as stolen_card (the card is reported stolen); ", or nothing without a known reason. */
const because = (reason: unknown) => (isDeclineReason(reason)
  ? `declined as ${reason} (${DECLINE_REASON_TEXT[reason].charAt(0).toLowerCase()}${DECLINE_REASON_TEXT[reason].slice(1, -1)}); ` : '');
/** "refund rf_1", or "the refund" when the entry does not name it. */
const named = (what: string, id: unknown) => (id ? `${what} ${id}` : `the ${what}`);

/** What a provider's notification did (provider-notifications/decide.ts). */
const NOTIFIED: Record<string, string> = {
  applied: 'it moved the payment on, as the entries after it tell.',
  confirmed: 'it agrees with the payment\'s state, so nothing changed.',
  ignored: 'it was recorded and ignored, since a notification never moves a payment backwards '
    + '(it arrived late or out of order) and this one decides nothing the payment does not already show.',
};

const ATTEMPT_ANSWERED: Record<string, Describe> = {
  'attempt.succeeded': (d, money) => `The provider approved the payment${code(d.provider_code)}${ms(d.latency_ms)}; `
    + `its fee is ${money(d.fee_amount ?? 0)}.`,
  'attempt.authorized': (d, money) => `The provider authorized the funds${code(d.provider_code)}${ms(d.latency_ms)}; `
    + `they are held until the payment is captured or cancelled (fee ${money(d.fee_amount ?? 0)}).`,
  'attempt.failed': (d) => `The provider answered ${d.outcome ?? 'with a failure'}${code(d.provider_code)}${ms(d.latency_ms)}: `
    + `${because(d.decline_reason)}nobody was charged by this attempt.`,
  'attempt.unknown': (d) => `The provider could not tell the outcome${code(d.provider_code)}${ms(d.latency_ms)}; `
    + 'no other provider is tried, and reconciliation asks it again later.',
  'attempt.processing': (d) => `The provider waits for the customer${code(d.provider_code)}${ms(d.latency_ms)}.`,
  'attempt.cancelled': () => 'The attempt was cancelled with its payment.',
};

/** The accounts routing skipped because the payment's credential does not reach them. */
function skippedText(skipped: unknown): string {
  if (!Array.isArray(skipped) || skipped.length === 0) return '';
  const reasons = [...new Set(skipped.map((k: { reason?: string }) => k.reason).filter(Boolean))];
  return ` Never tried: ${reasons.join('; ')}.`;
}

const STRATEGY_WORDS: Record<string, string> = {
  volume_split: 'volume split', success_rate: 'success rate', elimination: 'elimination', expected_value: 'expected value',
};

/**
 * Why the first provider is first, from the strategy routing-risk applied: the rule's own
 * order, the lowest fee, or the learning strategy's reason (rates, samples, exploration share).
 */
function orderText(d: Data, money: (minor: unknown) => string): string {
  const scores: Array<{ provider_name?: string; score?: number | null }> = Array.isArray(d.scores) ? d.scores : [];
  const first = scores[0]?.provider_name;
  if (!d.strategy || !first) return '';
  const rule = d.rule && d.rule !== 'default' ? `rule "${d.rule}"` : 'the default rule';
  const why = d.strategy === 'priority' ? `by priority, ${rule}'s order: ${first} first, as listed.`
    : d.strategy === 'cheapest' ? `by cost, cheapest first for this amount: ${first} first`
      + `${typeof scores[0]?.score === 'number' ? `, its fee ${money(scores[0].score)}` : ''}.`
      : `by ${STRATEGY_WORDS[d.strategy] ?? d.strategy}: ${d.reason ?? `${first} first`}.`;
  const explored = d.explored
    ? ` This payment took the exploration share: ${first} was put first on purpose, to keep learning how it does; `
      + 'the others remain behind it for failover.'
    : '';
  return ` Ordered ${why}${explored}`;
}

const DESCRIBE: Record<string, Describe> = {
  'payment.created': (d, money) => `A payment of ${money(d.amount)} was accepted; risk evaluation and routing follow.`,
  'risk.evaluated': (d) => `Risk rules ${d.outcome === 'block' ? 'blocked' : 'allowed'} the payment`
    + (Array.isArray(d.reasons) && d.reasons.length > 0 ? ` (signals: ${d.reasons.join(', ')}).` : ', with no risk signals.'),
  'routing.decided': (d, money) => (Array.isArray(d.candidates) && d.candidates.length > 0
    ? `Eligible providers, tried in this order until one completes the payment: ${d.candidates.join(', ')}.${orderText(d, money)}`
    : 'No connected provider can process this payment.') + skippedText(d.skipped),
  'attempt.started': (d) => `The payment was sent to the provider${d.provider_account_id ? ` (account ${d.provider_account_id})` : ''}`
    + (d.vault ? `, its card forwarded by the ${d.vault} vault.` : d.path === 'direct' ? ', its token sent directly.' : '.'),
  ...ATTEMPT_ANSWERED,
  'attempt.timed_out': (d) => d.reason ?? 'The provider did not answer in time; its status is queried before anything else is tried.',
  'attempt.status_checked': (d) => (d.found === null || d.found === undefined
    ? `The status query failed${d.error ? ` (${d.error})` : ''}, so the outcome stays unknown.`
    : d.found ? `The provider's status query reports ${d.outcome ?? 'an outcome'}.` : 'The provider never received the payment: nobody was charged.')
    + (d.by === 'reconciliation' ? ' Asked by reconciliation.' : ''),
  'attempt.late_success': (d, money) => `The provider reported, after this attempt was recorded failed and the payment had moved on, `
    + `that it ${d.held ? 'authorized' : 'charged'} ${money(d.amount)}: that charge is not the payment's, so it is being `
    + `${d.held ? 'released' : 'refunded'} at the provider, once.`,
  'attempt.late_charge_returned': (d, money) => `The provider ${d.held ? 'released' : 'refunded'} the late charge of ${money(d.amount)}`
    + `${code(d.provider_code)}: the customer is charged once.`,
  'attempt.late_charge_refused': (d, money) => `The provider refused to return the late charge of ${money(d.amount)}`
    + `${code(d.provider_code)}${d.provider_message ? ` (${d.provider_message})` : ''}: the customer was charged twice; return it at the provider.`,
  failover: (d) => `Nobody was charged at ${d.from_provider ?? 'the provider'}${d.reason ? ` (${d.reason})` : ''}, `
    + `so the payment moves on to ${d.to_provider ?? 'the next provider'}.`,
  'payment.processing': (_d, _m, title) => (title === 'Awaiting the customer'
    ? 'The payment waits for the customer to complete the action shown in next_action.'
    : "The provider's outcome is not known yet; reconciliation asks it again until it is."),
  'payment.authorized': () => 'The funds are held on the customer\'s account until the payment is captured or cancelled.',
  'payment.successful': () => 'The payment completed: the customer was charged and the provider will settle the funds.',
  'payment.failed': (d, _m, title) => (d.code
    ? `The payment failed with ${d.code}${d.category ? ` (${d.category} failure)` : ''}; ${because(d.decline_reason)}nobody was charged.`
    : `The payment failed before any provider was tried: ${title.toLowerCase()}.`),
  'payment.captured': (d, money) => `${money(d.amount)} captured`
    + (d.released > 0 ? `; the other ${money(d.released)} of the authorization was released to the customer.` : '.'),
  'payment.cancelled': (d) => (d.by === 'expiry'
    ? `Not captured within ${d.ttl_hours ?? 'the allowed'} hours: the authorization expired and the held funds were released.`
    : d.by === 'provider'
      ? "The provider's notification reports the payment cancelled there; nothing will be charged."
      : `Cancelled by the merchant${d.reason ? `, reason: "${d.reason}"` : ''}; nothing will be charged.`),
  'customer_action.required': (d) => `The customer is asked to act on the ${d.page === 'sandbox' ? 'sandbox' : "provider's"} page`
    + (d.expires_at ? ` before ${d.expires_at}.` : '.'),
  'customer_action.completed': (d) => (d.outcome === 'expired'
    ? 'The customer did not act in time: the action expired.'
    : d.by === 'provider'
      ? `The provider's notification reports that the customer ${d.outcome ?? 'answered'} the payment on its page.`
      : d.by === 'reconciliation'
        ? `No notification came before the action expired; asked by reconciliation, the provider reports that the customer ${d.outcome ?? 'answered'} the payment.`
      : `The customer ${d.outcome ?? 'answered'} the payment.`),
  'provider.notification': (d) => `${d.provider ?? 'The provider'} sent notification ${d.event_id ?? ''} `
    + `(${d.subject ?? 'payment'} ${d.outcome ?? ''}) while the payment was ${d.status ?? 'open'}: ${NOTIFIED[d.effect] ?? 'it was recorded.'}`,
  'refund.processing': (d, money) => `A refund of ${money(d.amount)} (${named('refund', d.refund_id)}) was sent to the provider.`,
  'refund.successful': (d) => `The provider accepted ${named('refund', d.refund_id)}${code(d.provider_code)}.`,
  'refund.failed': (d, money) => (d.after_acceptance
    ? `The provider's notification reports that ${named('refund', d.refund_id)}, which it had accepted, failed`
      + `${d.provider_code ? ` (${d.provider_code})` : ''}: the customer did not get ${d.amount === undefined ? 'its amount' : money(d.amount)} back, `
      + 'so it no longer counts as refunded.'
    : `The provider refused ${named('refund', d.refund_id)}${d.code ? ` (${d.code})` : ''}; `
    + "the payment's amounts are unchanged."),
  'payment.refunded': (d, money) => `Fully refunded: ${money(d.refunded_amount)} returned to the customer in all.`,
  'payment.partially_refunded': (d, money) => `Partially refunded: ${money(d.refunded_amount)} returned to the customer so far.`,
  'payment.refund_reversed': (d, money) => `${d.refund_id ? `Refund ${d.refund_id}` : 'The refund'} failed after it was counted, so its `
    + `${money(d.amount)} is refundable again: ${money(d.refunded_amount)} refunded in all, and the payment is `
    + `${d.status ?? 'back to its previous status'}${d.from_status ? ` (was ${d.from_status})` : ''}.`,
  'dispute.opened': (d, money) => `The cardholder's bank disputed the payment (${named('dispute', d.dispute_id)}, ${d.stage ?? 'chargeback'}, `
    + `reason ${d.reason ?? 'general'})${d.moved_amount ? `: the provider withdrew ${money(d.moved_amount)} and a fee of ${money(d.fee_amount ?? 0)}` : ''}`
    + `${d.evidence_due_by ? `; evidence is due by ${d.evidence_due_by}` : ''}.`,
  'dispute.updated': (d, money, title) => `${title}.${movedText(d, money)}`,
  'dispute.closed': (d, money) => `${named('Dispute', d.dispute_id)} closed as ${d.status ?? 'decided'}.${movedText(d, money)}`
    + (d.status === 'won' ? '' : d.funds_withdrawn ? ' The withdrawn funds stay with the cardholder.' : ''),
  'event.emitted': (d) => `${['Event', d.event_type, d.event_id && `(${d.event_id})`].filter(Boolean).join(' ')} was emitted, `
    + 'to be delivered to the webhook endpoints subscribed to it.',
};

function movedText(d: Data, money: (minor: unknown) => string): string {
  if (d.movement === 'withdrawal') return ` The provider withdrew ${money(d.moved_amount)} and a fee of ${money(d.fee_amount ?? 0)}.`;
  if (d.movement === 'reinstatement') return ` The provider reinstated ${money(d.moved_amount)} (it keeps its fee).`;
  return '';
}

/**
 * The title of a dispute's timeline entry: "Dispute opened: fraudulent, 25.00 EUR withdrawn,
 * evidence due 2026-12-20". `data` is the entry's own (disputes/apply.ts writes it).
 */
export function disputeEntryTitle(type: 'dispute.opened' | 'dispute.updated' | 'dispute.closed', d: Data, currency: string): string {
  const money = (minor: unknown) => formatMoney(typeof minor === 'number' ? minor : 0, currency);
  const moved = d.movement ? `, ${money(d.moved_amount)} ${d.movement === 'withdrawal' ? 'withdrawn' : 'reinstated'}` : '';
  const due = d.status === 'needs_response' && d.evidence_due_by ? `, evidence due ${d.evidence_due_by}` : '';
  if (type === 'dispute.opened') return `Dispute opened: ${d.reason}${moved || `, ${money(d.amount)}`}${due}`;
  if (type === 'dispute.closed') return `Dispute ${d.status}${moved}`;
  return `Dispute ${String(d.stage).replace('_', '-')} ${String(d.status).replace('_', ' ')}${moved}${due}`;
}

/** The entry's description; an entry type told nowhere here (none is) falls back to its title. */
export function describeEntry(entry: DescribedEntry, currency: string): string {
  const money = (minor: unknown) => formatMoney(typeof minor === 'number' || typeof minor === 'bigint' ? minor : 0, currency);
  const describe = DESCRIBE[entry.type];
  return describe ? describe(entry.data ?? {}, money, entry.title) : `${entry.title}.`;
}

/** The entry types told here (for tests: every type written has its description). */
export const DESCRIBED_TYPES: readonly string[] = Object.keys(DESCRIBE);
