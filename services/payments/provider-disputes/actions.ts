import { serviceError } from '../../contract/index.js';
import { withDeadline, DeadlineExceeded } from '../../platform/deadline.js';
import {
  DisputeActionFailed, type Connector, type ConnectorRegistry, type DisputeActionAnswer, type DisputeActionRequest,
} from '../../connectors/index.js';
import type { DisputeProviderActions, DisputeRecord, ProviderAnswer } from '../disputes/index.js';

/**
 * The licensed providers' dispute actions (the merchant's accept and evidence), by provider code,
 * for the disputes' action registry: each goes to the connector of the account that took the
 * payment, under the action's deadline. A provider that refuses is answered provider_declined
 * in its own words, one that cannot be reached provider_unavailable; either way nothing changed
 * here. A connector without the call has no entry for it (dispute_action_unsupported).
 */
export interface ProviderDisputeActionsDeps {
  connectors: ConnectorRegistry;
  providerCodes: Iterable<string>;
  /** The action's deadline at the provider (uploads included); past it the merchant hears provider_unavailable. */
  timeoutMs: number;
}

function answerOf(a: DisputeActionAnswer): ProviderAnswer {
  return {
    ...(a.status && { status: a.status }), ...(a.stage && { stage: a.stage }),
    ...(a.fundsWithdrawn !== undefined && { fundsWithdrawn: a.fundsWithdrawn }),
    ...(a.evidenceDueBy !== undefined && { evidenceDueBy: a.evidenceDueBy }),
  };
}

const unsupported = (d: DisputeRecord, action: string) => serviceError('dispute_action_unsupported',
  `${d.providerName ?? d.providerCode} does not take ${action} through its API; answer this dispute in its dashboard.`, { param: 'id' });

export function providerDisputeActions(deps: ProviderDisputeActionsDeps): Record<string, DisputeProviderActions> {
  async function call(d: DisputeRecord, run: (req: Omit<DisputeActionRequest, 'signal'>, signal: AbortSignal) => Promise<DisputeActionAnswer>) {
    if (!d.providerAccountId) throw unsupported(d, 'responses for a payment without an account');
    const req = { account: { providerCode: d.providerCode, id: d.providerAccountId }, providerDisputeId: d.providerDisputeId };
    try {
      return answerOf(await withDeadline(deps.timeoutMs, (signal) => run(req, signal)));
    } catch (err) {
      const provider = d.providerName ?? d.providerCode;
      if (err instanceof DisputeActionFailed && err.kind === 'declined') {
        throw serviceError('provider_declined', `${provider} refused: ${err.message}`, { param: 'id' });
      }
      if (err instanceof DeadlineExceeded) {
        // It may have acted: its notification (or the sync) will say what it did.
        throw serviceError('provider_unavailable', `${provider} did not answer in time; the dispute changes when ${provider} reports what it did.`, { param: 'id' });
      }
      if (err instanceof DisputeActionFailed) {
        throw serviceError('provider_unavailable', `${provider} could not be reached; nothing changed, try again.`, { param: 'id' });
      }
      throw err;
    }
  }

  const actionsOf = (c: Connector): DisputeProviderActions | undefined => {
    if (!c.acceptDispute && !c.submitDisputeEvidence) return undefined;
    return {
      accept: (d) => (c.acceptDispute ? call(d, (req, signal) => c.acceptDispute!({ ...req, signal })) : Promise.reject(unsupported(d, 'acceptances'))),
      submitEvidence: (d, evidence, documents) => (c.submitDisputeEvidence
        ? call(d, (req, signal) => c.submitDisputeEvidence!({
          ...req, signal, evidence: withoutDocuments(evidence),
          documents: documents.map((doc) => ({ id: doc.id, filename: doc.filename, contentType: doc.contentType, content: doc.content })),
        }))
        : Promise.reject(unsupported(d, 'evidence'))),
    };
  };

  return Object.fromEntries([...deps.providerCodes].flatMap((code) => {
    const connector = deps.connectors.forProvider(code);
    const actions = connector && actionsOf(connector);
    return actions ? [[code, actions]] : [];
  }));
}

function withoutDocuments<T extends { documents?: unknown }>(e: T): Omit<T, 'documents'> {
  const { documents: _documents, ...fields } = e;
  return fields;
}
