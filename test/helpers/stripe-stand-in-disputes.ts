// Stripe's disputes in the Stripe stand-in, from its reference (https://docs.stripe.com/api/disputes,
// https://docs.stripe.com/api/files, https://docs.stripe.com/api/events/list):
//   GET /v1/disputes/{id}               the Dispute
//   POST /v1/disputes/{id}              evidence[...] staged; submit=true sends it (status under_review)
//   POST /v1/disputes/{id}/close        the merchant gives up: needs_response → lost (warning_* → warning_closed)
//   POST /v1/files                      multipart/form-data, purpose=dispute_evidence: a File (file_…)
//   GET /v1/events                      the stand-in's events, newest first, by types[] and created[gte]
// The bank's side is the test's: openDispute (a chargeback on a PaymentIntent's charge, its amount
// and Stripe's 15.00 fee withdrawn by a balance transaction) and decide (won: the amount reinstated
// by a second balance transaction; lost: nothing). Each change makes the Event Stripe would send
// (charge.dispute.created, .funds_withdrawn, .updated, .closed, .funds_reinstated), kept in `events`
// for the test to deliver, or to lose.

type Answer = { status: number; body: Record<string, unknown> };
export type StandInDispute = Record<string, unknown> & {
  id: string; status: string; amount: number; currency: string; balance_transactions: Array<Record<string, unknown>>;
};
export type StandInEvent = { id: string; type: string; created: number; json: string };
/** What a File upload carried, as the stand-in saw it (the test asserts the SDK's call). */
export interface UploadedFile {
  id: string;
  purpose: string;
  filename: string;
  type: string;
  /** The part's bytes as text begin with a PDF's magic number. */
  pdf: boolean;
}

const error = (status: number, e: Record<string, unknown>): Answer => ({ status, body: { error: e } });
/** Stripe's dispute fee in EUR (its European price), taken with the withdrawal. */
const DISPUTE_FEE = 1500;
const DAY = 86_400;

export interface DisputeDeps {
  nextId(prefix: string): string;
  now(): number;
  charges: Map<string, Record<string, unknown>>;
  intents: Map<string, Record<string, unknown>>;
  /** Books a balance transaction (reported under `category`) and answers it. */
  balance(type: string, amount: number, fee: number, currency: string, source: string, category: string): Record<string, unknown>;
}

export function createDisputeEndpoints(deps: DisputeDeps) {
  const disputes = new Map<string, StandInDispute>();
  const events: StandInEvent[] = [];
  const files: UploadedFile[] = [];

  function emit(type: string, d: StandInDispute, created = deps.now()): StandInEvent {
    const id = deps.nextId('evt');
    const json = JSON.stringify({
      id, object: 'event', api_version: '2025-01-27.acacia', created, livemode: true, pending_webhooks: 1,
      request: { id: null, idempotency_key: null }, type, data: { object: structuredClone(d) },
    });
    const e = { id, type, created, json };
    events.push(e);
    return e;
  }

  function openDispute(intentId: string, reason = 'fraudulent', opts: { inquiry?: boolean } = {}): { dispute: StandInDispute; events: StandInEvent[] } {
    const pi = deps.intents.get(intentId)!;
    const charge = deps.charges.get(String(pi.latest_charge))!;
    const d: StandInDispute = {
      id: deps.nextId('dp'), object: 'dispute', amount: Number(charge.amount), currency: String(charge.currency), charge: charge.id,
      payment_intent: pi.id, reason, status: opts.inquiry ? 'warning_needs_response' : 'needs_response', balance_transactions: [],
      created: deps.now(), evidence: {}, is_charge_refundable: false, livemode: true, metadata: {},
      evidence_details: { due_by: deps.now() + 14 * DAY, has_evidence: false, past_due: false, submission_count: 0 },
    };
    disputes.set(d.id, d);
    const made = [emit('charge.dispute.created', d)];
    if (!opts.inquiry) {
      d.balance_transactions.push(deps.balance('adjustment', -d.amount, DISPUTE_FEE, d.currency, d.id, 'dispute'));
      made.push(emit('charge.dispute.funds_withdrawn', d));
    }
    return { dispute: d, events: made };
  }

  /**
   * The issuer decides: won reinstates the amount (Stripe keeps its fee), lost leaves it withdrawn.
   * It decides weeks after the evidence: its events are dated a second after anything before them.
   */
  function decide(id: string, outcome: 'won' | 'lost'): StandInEvent[] {
    const d = disputes.get(id)!;
    d.status = outcome;
    const at = deps.now() + 1;
    const made = [emit('charge.dispute.closed', d, at)];
    if (outcome === 'won') {
      d.balance_transactions.push(deps.balance('adjustment', d.amount, 0, d.currency, d.id, 'dispute_reversal'));
      made.push(emit('charge.dispute.funds_reinstated', d, at));
    }
    return made;
  }

  function update(d: StandInDispute, p: Record<string, unknown>): Answer {
    if (!['needs_response', 'warning_needs_response', 'appeal_needs_response'].includes(d.status)) {
      return error(400, { type: 'invalid_request_error', message: `This dispute is already closed or submitted (${d.status}).` });
    }
    const evidence = (p.evidence ?? {}) as Record<string, string>;
    for (const [k, v] of Object.entries(evidence)) {
      if (/_file$|^receipt$|_documentation$|^customer_communication$|^refund_policy$|^cancellation_policy$/.test(k) && !files.some((f) => f.id === v)) {
        return error(400, { type: 'invalid_request_error', param: `evidence[${k}]`, message: `No such file upload: '${v}'` });
      }
    }
    d.evidence = { ...(d.evidence as object), ...evidence };
    if (p.submit === 'true') {
      d.status = d.status.replace('needs_response', 'under_review');
      (d.evidence_details as Record<string, unknown>).submission_count = 1;
      (d.evidence_details as Record<string, unknown>).has_evidence = true;
    }
    emit('charge.dispute.updated', d);
    return { status: 200, body: d };
  }

  function close(d: StandInDispute): Answer {
    if (!d.status.endsWith('needs_response')) return error(400, { type: 'invalid_request_error', message: `This dispute is ${d.status} and cannot be closed.` });
    d.status = d.status === 'warning_needs_response' ? 'warning_closed' : 'lost';
    emit('charge.dispute.closed', d);
    return { status: 200, body: d };
  }

  /** POST /v1/files: the multipart body's fields (purpose) and its file part (name, type, bytes). */
  function upload(contentType: string, body: string): Answer {
    const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
    if (!boundary) return error(400, { type: 'invalid_request_error', message: 'Expected multipart/form-data' });
    const parts = body.split(`--${boundary}`).slice(1, -1);
    const field = (name: string) => parts.find((p) => p.includes(`name="${name}"`));
    const purpose = field('purpose')?.split('\r\n\r\n')[1]?.replace(/\r\n$/, '') ?? '';
    const file = field('file');
    if (purpose !== 'dispute_evidence' || !file) return error(400, { type: 'invalid_request_error', param: 'purpose', message: 'Invalid purpose or no file' });
    const f: UploadedFile = {
      id: deps.nextId('file'), purpose, filename: /filename="([^"]*)"/.exec(file)?.[1] ?? '',
      type: /Content-Type: ([^\r\n]+)/i.exec(file)?.[1] ?? '', pdf: file.split('\r\n\r\n')[1]?.startsWith('%PDF') ?? false,
    };
    files.push(f);
    return { status: 200, body: { id: f.id, object: 'file', purpose, filename: f.filename, size: 0, type: 'pdf', created: deps.now() } };
  }

  function listEvents(q: Record<string, unknown>): Answer {
    const types = Object.values((q.types as Record<string, string> | string[] | undefined) ?? {});
    const gte = Number((q.created as Record<string, string> | undefined)?.gte ?? 0);
    const data = events.filter((e) => (types.length === 0 || types.includes(e.type)) && e.created >= gte).reverse().map((e) => JSON.parse(e.json));
    return { status: 200, body: { object: 'list', data, has_more: false, url: '/v1/events' } };
  }

  function route(method: string, path: string, p: Record<string, unknown>): Answer | undefined {
    if (method === 'GET' && path === '/v1/events') return listEvents(p);
    const m = /^\/v1\/disputes\/([^/]+)(\/close)?$/.exec(path);
    if (!m) return undefined;
    const d = disputes.get(m[1]);
    if (!d) return error(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such dispute: '${m[1]}'` });
    if (method === 'GET' && !m[2]) return { status: 200, body: d };
    if (method === 'POST' && m[2]) return close(d);
    if (method === 'POST') return update(d, p);
    return undefined;
  }

  return { disputes, events, files, openDispute, decide, upload, route };
}
