// Adyen's disputes for the connector interface: its dispute notifications
// (https://docs.adyen.com/risk-management/disputes-api/dispute-notifications) read as the contract's
// dispute, and the merchant's actions through the library's Disputes API (DisputeService v30):
// accept as acceptDispute, evidence as supplyDefenseDocument then defendDispute with a defense
// reason retrieveApplicableDefenseReasons offers. Adyen has no call that lists disputes, so
// there is no sync: its notifications, retried by Adyen until acknowledged, are the only source.
import type { Types } from '@adyen/api-library';
import type { DisputeReason, DisputeStage, DisputeStatus } from '../../contract/enums.js';
import { fromAdyenAmount } from './amounts.js';
import { AdyenConnectionError, type AdyenAccount } from './client.js';
import {
  DisputeActionFailed, type DisputeActionAnswer, type DisputeActionRequest, type DisputeEvidenceRequest, type ProviderDispute,
} from '../types.js';

type Item = Types.notification.NotificationRequestItem;
/** The Disputes API's defense reason, as retrieveApplicableDefenseReasons answers it. */
type DefenseReason = NonNullable<Awaited<ReturnType<AdyenAccount['disputes']['retrieveApplicableDefenseReasons']>>['defenseReasons']>[number];

/**
 * Each dispute event code as our stage, status and funds. stage null: the event belongs to whatever
 * round the dispute is in; status null: additionalData.disputeStatus decides (STATUSES). Funds:
 * withdrawn when Adyen debits the disputed amount (CHARGEBACK, SECOND_CHARGEBACK,
 * PREARBITRATION_LOST), back when it credits it (a won status), else as they were.
 */
const EVENTS: Record<string, { stage: DisputeStage | null; status: DisputeStatus | null; withdraws: boolean }> = {
  REQUEST_FOR_INFORMATION: { stage: 'inquiry', status: 'needs_response', withdraws: false },
  // The issuer announced a chargeback; no money moves before CHARGEBACK.
  NOTIFICATION_OF_CHARGEBACK: { stage: 'chargeback', status: 'needs_response', withdraws: false },
  DISPUTE_OPENED_WITH_CHARGEBACK: { stage: 'chargeback', status: 'needs_response', withdraws: true },
  CHARGEBACK: { stage: 'chargeback', status: null, withdraws: true },
  CHARGEBACK_REVERSED: { stage: 'chargeback', status: 'won', withdraws: false },
  // The issuer declined the defense: the amount is debited again, and the merchant cannot answer it through the API.
  SECOND_CHARGEBACK: { stage: 'pre_arbitration', status: 'lost', withdraws: true },
  PREARBITRATION_WON: { stage: 'pre_arbitration', status: 'won', withdraws: false },
  PREARBITRATION_LOST: { stage: 'pre_arbitration', status: 'lost', withdraws: true },
  INFORMATION_SUPPLIED: { stage: null, status: 'under_review', withdraws: false },
  DISPUTE_DEFENSE_PERIOD_ENDED: { stage: null, status: 'expired', withdraws: false },
  // The issuer accepted the defense or did not answer in time: won (CHARGEBACK_REVERSED follows and agrees).
  ISSUER_RESPONSE_TIMEFRAME_EXPIRED: { stage: null, status: 'won', withdraws: false },
};

/** additionalData.disputeStatus as ours (Adyen leaves it out for payments processed in Brazil). */
const STATUSES: Record<string, DisputeStatus> = {
  Undefended: 'needs_response', Pending: 'under_review', Responded: 'under_review', InformationSupplied: 'under_review',
  Won: 'won', Lost: 'lost', Accepted: 'accepted', Expired: 'expired',
};

/** Whether an event code is one of a dispute's (others stay with the payment notifications). */
export const isDisputeEvent = (code: string): boolean => Object.hasOwn(EVENTS, code);

/**
 * A scheme reason code as ours: Visa's 10.x (fraud), 12.6.x (duplicate), 13.x (consumer disputes);
 * Mastercard's four-digit codes; American Express's letters. Anything else is general.
 */
function reasonOf(code: string | undefined): DisputeReason {
  const c = (code ?? '').trim().toUpperCase();
  if (/^10\.|^(4837|4840|4849|4863|4870|4871)$|^F\d\d$|^FR\d$|^UA\d\d$/.test(c)) return 'fraudulent';
  if (/^12\.6|^4834$|^P08$/.test(c)) return 'duplicate';
  if (/^13\.1$|^4855$|^C08$/.test(c)) return 'product_not_received';
  if (/^13\.2$|^4841$|^C28$/.test(c)) return 'subscription_canceled';
  if (/^13\.3$|^13\.4$|^13\.5$|^C31$|^C32$/.test(c)) return 'product_unacceptable';
  if (/^13\.6$|^13\.7$|^4860$|^C02$|^C05$/.test(c)) return 'credit_not_processed';
  return 'general';
}

const ad = (item: Item) => (item.additionalData ?? {}) as Record<string, string | undefined>;

/** A dispute notification item as the contract's dispute at its event date. */
export function disputeOf(item: Item, occurredAt: Date): ProviderDispute {
  const event = EVENTS[item.eventCode]!;
  const extra = ad(item);
  const code = extra.chargebackReasonCode ?? extra.rfiReasonCode ?? extra.nofReasonCode;
  const scheme = extra.chargebackSchemeCode ?? extra.rfiSchemeCode ?? extra.nofSchemeCode;
  const status = event.status ?? STATUSES[extra.disputeStatus ?? ''] ?? 'needs_response';
  const due = extra.defensePeriodEndsAt ? new Date(extra.defensePeriodEndsAt) : undefined;
  return {
    providerDisputeId: item.pspReference,
    attemptId: item.merchantReference || null,
    providerPaymentId: item.originalReference ?? null,
    stage: event.stage,
    status,
    reason: reasonOf(code),
    providerReason: code ? [scheme, code].filter(Boolean).join(' ') : item.reason ?? null,
    amount: fromAdyenAmount(item.amount.value ?? 0, item.amount.currency ?? ''),
    currency: (item.amount.currency ?? '').toUpperCase(),
    fundsWithdrawn: event.withdraws,
    evidenceDueBy: due && !Number.isNaN(due.getTime()) ? due : undefined,
    occurredAt,
  };
}

/** Adyen's answer to a Disputes API call: success, or its errorMessage as a refusal. */
function succeeded(result: { success: boolean; errorMessage?: string } | undefined, what: string): void {
  if (!result?.success) throw new DisputeActionFailed('declined', result?.errorMessage ?? `Adyen did not ${what}`);
}

/** A refusal in Adyen's words (a 4xx), or an unreachable Adyen (no answer, a 5xx). */
function failure(err: unknown): never {
  if (err instanceof DisputeActionFailed) throw err;
  const status = (err as { statusCode?: number }).statusCode;
  if (!(err instanceof AdyenConnectionError) && status !== undefined && status < 500) {
    throw new DisputeActionFailed('declined', (err as Error).message);
  }
  throw new DisputeActionFailed('unavailable', 'Adyen could not be reached');
}

/**
 * The defense reason for the merchant's evidence among those Adyen offers: goods or services
 * provided when the evidence names a shipment, else the generic defense material, else Adyen's first.
 */
export function defenseReason(reasons: DefenseReason[], e: DisputeEvidenceRequest['evidence']): DefenseReason | undefined {
  const preferred = e.shipping_tracking_number ? ['GoodsOrServicesProvided', 'SupplyDefenseMaterial'] : ['SupplyDefenseMaterial'];
  for (const code of preferred) {
    const found = reasons.find((r) => r.defenseReasonCode === code);
    if (found) return found;
  }
  return reasons[0];
}

/** Each document's type code for the reason: its required types in turn, then its general defense material. */
function documentTypes(reason: DefenseReason, count: number): string[] {
  const types = reason.defenseDocumentTypes ?? [];
  const required = types.filter((t) => t.requirementLevel === 'Required').map((t) => t.defenseDocumentTypeCode);
  const general = types.find((t) => t.defenseDocumentTypeCode === 'DefenseMaterial')?.defenseDocumentTypeCode
    ?? types.at(-1)?.defenseDocumentTypeCode ?? 'DefenseMaterial';
  return Array.from({ length: count }, (_, i) => required[i] ?? general);
}

export function createAdyenDisputes(forAccount: (accountId: string) => Promise<AdyenAccount | undefined>) {
  async function account(id: string): Promise<AdyenAccount> {
    const a = await forAccount(id);
    if (!a) throw new DisputeActionFailed('declined', 'The account has no Adyen API key or merchant account stored.');
    return a;
  }
  // The transport reads the signal from the options (client.ts), as the Checkout calls pass it.
  const signalOf = (req: DisputeActionRequest) => ({ signal: req.signal });

  return {
    async acceptDispute(req: DisputeActionRequest): Promise<DisputeActionAnswer> {
      const a = await account(req.account.id);
      try {
        const res = await a.disputes.acceptDispute({ disputePspReference: req.providerDisputeId, merchantAccountCode: a.merchantAccount }, signalOf(req));
        succeeded(res.disputeServiceResult, 'accept the dispute');
        return { status: 'accepted' };
      } catch (err) {
        return failure(err);
      }
    },

    /**
     * Adyen's Disputes API takes documents only (no text fields): the merchant's documents are
     * supplied under the chosen defense reason, then the dispute is defended with it. Evidence
     * without a document is refused before any call, rather than defended with nothing.
     */
    async submitDisputeEvidence(req: DisputeEvidenceRequest): Promise<DisputeActionAnswer> {
      if (req.documents.length === 0) {
        throw new DisputeActionFailed('declined', 'Adyen defends a dispute with documents only: upload at least one before submitting.');
      }
      const a = await account(req.account.id);
      const ids = { disputePspReference: req.providerDisputeId, merchantAccountCode: a.merchantAccount };
      try {
        const offered = await a.disputes.retrieveApplicableDefenseReasons(ids, signalOf(req));
        succeeded(offered.disputeServiceResult, 'offer defense reasons');
        const reason = defenseReason(offered.defenseReasons ?? [], req.evidence);
        if (!reason) throw new DisputeActionFailed('declined', 'Adyen offers no defense reason for this dispute: it cannot be defended.');
        const codes = documentTypes(reason, req.documents.length);
        const supplied = await a.disputes.supplyDefenseDocument({
          ...ids,
          defenseDocuments: req.documents.map((d, i) => ({
            content: d.content.toString('base64'), contentType: d.contentType, defenseDocumentTypeCode: codes[i]!,
          })),
        }, signalOf(req));
        succeeded(supplied.disputeServiceResult, 'take the defense documents');
        const defended = await a.disputes.defendDispute({ ...ids, defenseReasonCode: reason.defenseReasonCode }, signalOf(req));
        succeeded(defended.disputeServiceResult, 'defend the dispute');
        return { status: 'under_review' };
      } catch (err) {
        return failure(err);
      }
    },
  };
}
