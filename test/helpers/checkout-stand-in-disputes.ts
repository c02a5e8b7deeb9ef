// Checkout.com's Disputes and Files APIs in the Checkout.com stand-in, from its reference
// (https://api-reference.checkout.com/#tag/Disputes, #tag/Files):
//   GET /disputes?from=&limit=&skip=     disputes whose last_update is at or after `from`, last modified first
//   GET /disputes/{id}                   a dispute's details
//   POST /disputes/{id}/accept           204; the dispute is accepted
//   PUT /disputes/{id}/evidence          204; evidence fields staged (file fields must name uploaded files)
//   POST /disputes/{id}/evidence         204; the staged evidence submitted (evidence_under_review)
//   POST /files                          multipart/form-data with purpose=dispute_evidence: {id: file_…}
// The bank's side is the test's: openDispute makes an evidence_required dispute on a payment, and
// decide moves it; the test builds the dispute_* webhooks from `eventData`.

type Answer = { status: number; body: Record<string, unknown> };

export interface StandInCheckoutDispute {
  id: string; category: string; status: string; amount: number; currency: string; reason_code: string;
  payment_id: string; payment_reference: string; evidence_required_by: string; received_on: string; last_update: string;
  evidence: Record<string, string>;
}

export interface UploadedCheckoutFile {
  id: string;
  purpose: string;
  filename: string;
  pdf: boolean;
}

const invalid = (...codes: string[]): Answer => ({ status: 422, body: { request_id: 'req_standin', error_type: 'request_invalid', error_codes: codes } });

export function createCheckoutDisputeEndpoints() {
  const disputes = new Map<string, StandInCheckoutDispute>();
  const files: UploadedCheckoutFile[] = [];
  let seq = 0;
  const id = (prefix: string) => `${prefix}_standin${String(++seq).padStart(16, '0')}`;

  function openDispute(p: { id: string; reference: string; amount: number; currency: string }, category = 'product_service_not_received'): StandInCheckoutDispute {
    const now = new Date();
    const d: StandInCheckoutDispute = {
      id: id('dsp'), category, status: 'evidence_required', amount: p.amount, currency: p.currency, reason_code: '13.1',
      payment_id: p.id, payment_reference: p.reference, evidence_required_by: new Date(now.getTime() + 10 * 86_400_000).toISOString(),
      received_on: now.toISOString(), last_update: now.toISOString(), evidence: {},
    };
    disputes.set(d.id, d);
    return d;
  }

  function decide(disputeId: string, status: string): StandInCheckoutDispute {
    return Object.assign(disputes.get(disputeId)!, { status, last_update: new Date().toISOString() });
  }

  /** A dispute webhook's `data`, as Checkout.com sends it for the dispute now. */
  function eventData(d: StandInCheckoutDispute): Record<string, unknown> {
    const { evidence: _e, status: _s, last_update: _l, received_on: _r, ...data } = d;
    return { ...data, date: d.received_on, payment_method: 'VISA' };
  }

  const shown = (d: StandInCheckoutDispute) => {
    const { evidence: _e, ...rest } = d;
    return rest;
  };

  function upload(contentType: string, raw: string): Answer {
    const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
    if (!boundary) return invalid('file_required');
    const parts = raw.split(`--${boundary}`).slice(1, -1);
    const part = (name: string) => parts.find((p) => p.includes(`name="${name}"`));
    const purpose = part('purpose')?.split('\r\n\r\n')[1]?.replace(/\r\n$/, '') ?? '';
    const file = part('file');
    const filename = file && /filename="([^"]*)"/.exec(file)?.[1];
    if (purpose !== 'dispute_evidence') return invalid('purpose_invalid');
    if (!file || !filename) return invalid('file_required');
    const f = { id: id('file'), purpose, filename, pdf: file.split('\r\n\r\n')[1]?.startsWith('%PDF') ?? false };
    files.push(f);
    return { status: 200, body: { id: f.id, _links: { self: { href: `/files/${f.id}` } } } };
  }

  function route(method: string, path: string, query: URLSearchParams, b: Record<string, unknown>): Answer | undefined {
    if (method === 'GET' && path === '/disputes') {
      const from = query.get('from') ? new Date(query.get('from')!).getTime() : 0;
      const limit = Number(query.get('limit') ?? 50);
      const skip = Number(query.get('skip') ?? 0);
      const all = [...disputes.values()].filter((d) => new Date(d.last_update).getTime() >= from)
        .sort((x, y) => y.last_update.localeCompare(x.last_update));
      return { status: 200, body: { limit, skip, total_count: all.length, data: all.slice(skip, skip + limit).map(shown) } };
    }
    const m = /^\/disputes\/([^/]+)(?:\/(accept|evidence))?$/.exec(path);
    if (!m) return undefined;
    const d = disputes.get(m[1]);
    if (!d) return { status: 404, body: {} };
    const open = d.status === 'evidence_required';
    if (method === 'GET' && !m[2]) return { status: 200, body: shown(d) };
    if (method === 'POST' && m[2] === 'accept') {
      if (!open) return invalid('dispute_not_accept_status');
      decide(d.id, 'accepted');
      return { status: 204, body: {} };
    }
    if (method === 'PUT' && m[2] === 'evidence') {
      if (!open) return invalid('dispute_evidence_status_invalid');
      for (const [k, v] of Object.entries(b)) {
        if (k.endsWith('_file') && !files.some((f) => f.id === v)) return invalid(`${k}_invalid`);
      }
      Object.assign(d.evidence, b);
      return { status: 204, body: {} };
    }
    if (method === 'POST' && m[2] === 'evidence') {
      if (!open || Object.keys(d.evidence).length === 0) return invalid('dispute_evidence_status_invalid');
      decide(d.id, 'evidence_under_review');
      return { status: 204, body: {} };
    }
    return undefined;
  }

  return { disputes, files, openDispute, decide, eventData, upload, route };
}
