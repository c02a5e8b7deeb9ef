import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { MAX_DISPUTE_DOCUMENT_BYTES, serviceError } from '../../contract/index.js';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import type { PaymentsStore } from '../payments/index.js';
import type { ApplyProviderView, createApply } from './apply.js';
import type { DisputeEvidence, DisputeRecord } from './model.js';
import { answeredView, type DisputeActionRegistry, type ProviderAnswer } from './provider-actions.js';
import { isDemoProvider, SANDBOX_DECIDE_SECONDS } from './sandbox.js';
import { merchantMayAct } from './state-machine.js';
import { scheduleDecision, type DisputeDocument, type DisputeFilter, type DisputeStore } from './store.js';

/**
 * The merchant's side of disputes: read them, stage and submit evidence, upload documents, accept.
 * An action is allowed only while the dispute needs a response (else invalid_state_transition); it
 * goes to the provider first (outside any transaction) and the provider's answer is applied as its
 * view, so the dispute moves only as the provider says.
 */

export const DOCUMENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export const MAX_DOCUMENTS = 10;
export const MAX_EVIDENCE_TEXT = 20_000;

/** The first bytes each accepted type starts with: a document is what it says it is. */
const MAGIC: Record<string, number[]> = {
  'application/pdf': [0x25, 0x50, 0x44, 0x46], 'image/png': [0x89, 0x50, 0x4e, 0x47], 'image/jpeg': [0xff, 0xd8, 0xff],
};

export interface DisputesDeps {
  store: PaymentsStore;
  disputes: DisputeStore;
  apply: ReturnType<typeof createApply>;
  actions: DisputeActionRegistry;
  clock: Clock;
  relay: { kick(): void };
}

const notFound = (id: string) => serviceError('resource_not_found', `No dispute ${id}`, { param: 'id' });

export function createDisputes(deps: DisputesDeps) {
  const { disputes, store } = deps;
  const applyView: ApplyProviderView = deps.apply.applyProviderView;

  async function get(scope: Scope, id: string): Promise<{ dispute: DisputeRecord; documents: DisputeDocument[] }> {
    const dispute = await disputes.get(scope, id);
    if (!dispute) throw notFound(id);
    return { dispute, documents: await disputes.documents(scope, id) };
  }

  function mayAct(d: DisputeRecord, action: string): void {
    if (!merchantMayAct(d)) {
      throw serviceError('invalid_state_transition', `Dispute ${d.id} is ${d.status}: it can be ${action} only while it needs a response.`, { param: 'id' });
    }
  }

  function providerActions(d: DisputeRecord) {
    const actions = deps.actions(d.providerCode);
    if (!actions) {
      throw serviceError('dispute_action_unsupported',
        `${d.providerName ?? d.providerCode} does not take dispute responses through its API; answer this dispute in its dashboard.`, { param: 'id' });
    }
    return actions;
  }

  /** Applies the provider's answer to an action as its view; the sandbox's decision is scheduled with it. */
  async function answered(scope: Scope, d: DisputeRecord, answer: ProviderAnswer, extra: Partial<DisputeRecord> = {}): Promise<DisputeRecord> {
    // The sandbox's demo provider decides submitted evidence a few seconds later, by the database's clock.
    const decideLater = answer.status === 'under_review' && isDemoProvider(d.providerCode);
    const applied = await store.transaction(async (tx) => {
      const result = await applyView(scope, answeredView(d, deps.clock.now(), answer), { tx, source: 'merchant', with: Object.keys(extra).length > 0 ? extra : undefined });
      if (decideLater && result.verdict !== 'ignored') await scheduleDecision(tx, d.id, SANDBOX_DECIDE_SECONDS);
      return result;
    });
    deps.relay.kick();
    if (applied.verdict === 'ignored') throw serviceError('invalid_state_transition', `Dispute ${d.id} changed meanwhile; read it again.`, { param: 'id' });
    return applied.dispute;
  }

  async function accept(scope: Scope, id: string): Promise<DisputeRecord> {
    const d = await disputes.get(scope, id);
    if (!d) throw notFound(id);
    mayAct(d, 'accepted');
    return answered(scope, d, await providerActions(d).accept(d));
  }

  /** Stages the evidence given (fields replace those staged) and, with submit, sends it all to the provider. */
  async function evidence(scope: Scope, id: string, given: DisputeEvidence, submit: boolean): Promise<DisputeRecord> {
    let d = await disputes.get(scope, id);
    if (!d) throw notFound(id);
    mayAct(d, 'answered');
    const actions = submit ? providerActions(d) : undefined;
    if (given.documents) {
      const known = new Set((await disputes.documents(scope, id)).map((doc) => doc.id));
      const unknown = given.documents.find((doc) => !known.has(doc));
      if (unknown) throw serviceError('validation_error', `No document ${unknown} uploaded for dispute ${id}`, { param: 'evidence.documents' });
    }
    if (Object.keys(given).length > 0) d = await stage(scope, d, given);
    if (!actions) return d;
    const documents = await disputes.documentContents(d.id, d.evidence.documents ?? []);
    const answer = await actions.submitEvidence(d, d.evidence, documents);
    return answered(scope, d, answer, { evidenceSubmittedAt: deps.clock.now() });
  }

  /** Merges the given evidence into what is staged, under the payment's lock, as every dispute change (dispute.updated). */
  async function stage(scope: Scope, d: DisputeRecord, given: DisputeEvidence): Promise<DisputeRecord> {
    const next = await store.transaction(async (tx) => {
      const payment = await store.getForUpdate(tx, scope, d.paymentId);
      const current = await disputes.getForUpdate(tx, scope, d.id);
      if (!payment || !current) throw notFound(d.id);
      mayAct(current, 'answered');
      const changed = { ...current, evidence: { ...current.evidence, ...given } };
      await deps.apply.write(tx, payment, current, changed, 'merchant', null, deps.clock.now());
      return changed;
    });
    deps.relay.kick();
    return next;
  }

  async function upload(scope: Scope, disputeId: string, filename: string, type: string, content: Uint8Array): Promise<DisputeDocument> {
    checkDocument(filename, type, content);
    return store.transaction(async (tx) => {
      const d = await disputes.getForUpdate(tx, scope, disputeId);
      if (!d) throw notFound(disputeId);
      mayAct(d, 'answered');
      if ((await disputes.documents(scope, disputeId, tx)).length >= MAX_DOCUMENTS) {
        throw serviceError('limit_reached', `A dispute takes at most ${MAX_DOCUMENTS} documents.`, { param: 'content' });
      }
      const doc: DisputeDocument = {
        id: newId('dpf', deps.clock.now()), disputeId, filename, contentType: type, size: content.length, createdAt: deps.clock.now(),
      };
      await disputes.insertDocument(tx, scope, doc, Buffer.from(content));
      return doc;
    });
  }

  return {
    get,
    list: (scope: Scope, f: DisputeFilter) => disputes.list(scope, f),
    accept,
    evidence,
    upload,
  };
}

/** The document's bounds, checked before anything is stored: its type, its size, and that its bytes are of that type. */
export function checkDocument(filename: string, type: string, content: Uint8Array): void {
  if (!(DOCUMENT_TYPES as readonly string[]).includes(type)) {
    throw serviceError('validation_error', `type must be one of ${DOCUMENT_TYPES.join(', ')}`, { param: 'type' });
  }
  if (filename.length === 0 || filename.length > 255) throw serviceError('validation_error', 'filename must be 1 to 255 characters', { param: 'filename' });
  if (content.length === 0 || content.length > MAX_DISPUTE_DOCUMENT_BYTES) {
    throw serviceError('validation_error', `content must be 1 byte to ${MAX_DISPUTE_DOCUMENT_BYTES} bytes (4 MiB) once decoded`, { param: 'content' });
  }
  if (!MAGIC[type].every((b, i) => content[i] === b)) {
    throw serviceError('validation_error', `content is not a ${type} file`, { param: 'content' });
  }
}

export type Disputes = ReturnType<typeof createDisputes>;
