// Adyen's Disputes API (DisputeService v30) in the Adyen stand-in, from its reference
// (https://docs.adyen.com/api-explorer/Disputes/30/overview): POST
// /ca/services/DisputeService/v30/{retrieveApplicableDefenseReasons, supplyDefenseDocument,
// defendDispute, acceptDispute}, each with disputePspReference and merchantAccountCode, each
// answering disputeServiceResult {success, errorMessage}. The bank's side is the test's:
// openDispute makes a dispute on a payment (its own pspReference), and disputeItem the dispute
// notification item Adyen would send for an event code (https://docs.adyen.com/risk-management/disputes-api/dispute-notifications).
import type { NotificationItemInput } from './adyen-stand-in.js';

type Answer = { status: number; body: Record<string, unknown> };

export interface StandInAdyenDispute {
  pspReference: string;
  paymentPspReference: string;
  merchantReference: string;
  amount: { value: number; currency: string };
  /** Undefended, Responded, Accepted, Won, Lost (additionalData.disputeStatus). */
  status: string;
  documents: Array<{ defenseDocumentTypeCode: string; contentType: string; bytes: number }>;
  defenseReasonCode: string | null;
}

/** The defense reasons the stand-in offers for every dispute, with their document types. */
const DEFENSE_REASONS = [
  {
    defenseReasonCode: 'GoodsOrServicesProvided', satisfied: false,
    defenseDocumentTypes: [
      { defenseDocumentTypeCode: 'TIDorInvoice', available: false, requirementLevel: 'Required' },
      { defenseDocumentTypeCode: 'DefenseMaterial', available: false, requirementLevel: 'Optional' },
    ],
  },
  {
    defenseReasonCode: 'SupplyDefenseMaterial', satisfied: false,
    defenseDocumentTypes: [{ defenseDocumentTypeCode: 'DefenseMaterial', available: false, requirementLevel: 'Required' }],
  },
];

const result = (success: boolean, errorMessage?: string): Answer => ({
  status: 200, body: { disputeServiceResult: { success, ...(errorMessage && { errorMessage }) } },
});

export function createAdyenDisputeEndpoints(deps: { merchantAccounts: string[] }) {
  const disputes = new Map<string, StandInAdyenDispute>();
  let seq = 0;

  function openDispute(payment: { pspReference: string; reference: string; amount: { value: number; currency: string } }): StandInAdyenDispute {
    const d: StandInAdyenDispute = {
      pspReference: `DSPT${Date.now()}${String(++seq).padStart(4, '0')}`, paymentPspReference: payment.pspReference,
      merchantReference: payment.reference, amount: { ...payment.amount }, status: 'Undefended', documents: [], defenseReasonCode: null,
    };
    disputes.set(d.pspReference, d);
    return d;
  }

  /** The notification item of `eventCode` for the dispute, as Adyen sends it (reason code 10.4: Visa's other fraud). */
  function disputeItem(merchantAccountCode: string, d: StandInAdyenDispute, eventCode: string, disputeStatus: string, eventDate = new Date()): NotificationItemInput {
    return {
      eventCode, pspReference: d.pspReference, originalReference: d.paymentPspReference, merchantAccountCode,
      merchantReference: d.merchantReference, amount: d.amount, success: true, reason: 'Other Fraud-Card Absent Environment',
      eventDate: eventDate.toISOString(),
      additionalData: {
        chargebackReasonCode: '10.4', chargebackSchemeCode: 'visa', disputeStatus, defendable: 'true',
        defensePeriodEndsAt: new Date(eventDate.getTime() + 20 * 86_400_000).toISOString(),
      },
    };
  }

  function route(op: string, b: Record<string, unknown>): Answer {
    if (!deps.merchantAccounts.includes(String(b.merchantAccountCode))) {
      return { status: 403, body: { status: 403, errorCode: '901', message: 'Invalid Merchant Account', errorType: 'security' } };
    }
    const d = disputes.get(String(b.disputePspReference));
    if (!d) return result(false, 'Could not find dispute');
    const open = d.status === 'Undefended';
    switch (op) {
      case 'retrieveApplicableDefenseReasons':
        return { status: 200, body: { defenseReasons: DEFENSE_REASONS, disputeServiceResult: { success: true } } };
      case 'supplyDefenseDocument': {
        if (!open) return result(false, 'Dispute is not defendable');
        const docs = (b.defenseDocuments ?? []) as Array<{ content: string; contentType: string; defenseDocumentTypeCode: string }>;
        d.documents.push(...docs.map((x) => ({
          defenseDocumentTypeCode: x.defenseDocumentTypeCode, contentType: x.contentType, bytes: Buffer.from(x.content, 'base64').length,
        })));
        return result(true);
      }
      case 'defendDispute':
        if (!open) return result(false, 'Dispute is not defendable');
        if (!DEFENSE_REASONS.some((r) => r.defenseReasonCode === b.defenseReasonCode)) return result(false, 'Invalid defense reason code');
        if (d.documents.length === 0) return result(false, 'Required defense documents are missing');
        Object.assign(d, { status: 'Responded', defenseReasonCode: String(b.defenseReasonCode) });
        return result(true);
      case 'acceptDispute':
        if (!open) return result(false, 'Dispute is already closed');
        d.status = 'Accepted';
        return result(true);
      default:
        return { status: 404, body: { status: 404, errorCode: '000', message: 'Not found', errorType: 'validation' } };
    }
  }

  return { disputes, openDispute, disputeItem, route };
}
