import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, idempotencyKey } from '../api/client';
import type { Dispute, TimelineEvent } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Link } from '../components/link';
import { ErrorMessage, Loading } from '../components/messages';
import { StatusBadge } from '../components/status-badge';
import { TimelineSection } from '../components/timeline-section';
import { useLoad } from '../components/use-load';
import { dateTime, label, money } from '../format';
import { canOperate, useSignedIn } from '../session';
import { daysLeftText } from './disputes';
import { DisputeEvidenceForm, EVIDENCE_FIELDS } from './dispute-evidence';

// One dispute: what the bank disputes and until when, its evidence (a form while it needs a
// response), accepting it behind a confirmation, and its history (the payment's timeline entries
// about it).

interface Detail {
  dispute: Dispute;
  history: TimelineEvent[];
}

async function loadDetail(id: string): Promise<Detail> {
  const dispute = await api.get<Dispute>(`/disputes/${encodeURIComponent(id)}`);
  const timeline = await api.get<{ data: TimelineEvent[] }>(`/payments/${encodeURIComponent(dispute.payment_id)}/timeline`);
  return { dispute, history: timeline.data.filter((e) => e.data?.dispute_id === id) };
}

export function DisputePage({ id }: { id: string }) {
  const session = useSignedIn();
  const detail = useLoad(() => loadDetail(id), [id]);
  const [done, setDone] = useState<string>();
  if (detail.error) return <ErrorMessage error={detail.error} />;
  if (!detail.data) return <Loading what="the dispute" />;
  const { dispute: d, history } = detail.data;
  const answerable = d.status === 'needs_response' && canOperate(session);
  const finished = (what: string) => {
    setDone(what);
    detail.reload();
  };
  return (
    <>
      <p><Link to="/disputes">← Disputes</Link></p>
      <h1>{money(d.amount, d.currency)} <StatusBadge status={d.status} /></h1>
      <p class="mono muted">{d.id}</p>
      {done && <p class="notice" role="status">{done}</p>}
      {d.status === 'needs_response' && (
        <p class="warning">
          Evidence is due {dateTime(d.evidence_due_by)} ({daysLeftText(d)}). Without an answer the provider decides against you.
        </p>
      )}
      {answerable && <AcceptDispute dispute={d} onDone={finished} />}
      <div class="grid-2">
        <section aria-labelledby="dispute-details">
          <h2 id="dispute-details">Dispute</h2>
          <dl>
            <dt>Reason</dt><dd>{label(d.reason)}{d.provider_reason && <span class="muted"> (provider's code {d.provider_reason})</span>}</dd>
            <dt>Stage</dt><dd>{label(d.stage)}</dd>
            <dt>Amount</dt><dd>{money(d.amount, d.currency)}</dd>
            <dt>Dispute fee</dt><dd>{money(d.fee_amount, d.currency)}</dd>
            <dt>Funds</dt><dd>{d.funds_withdrawn ? 'withdrawn from your balance' : 'not withdrawn'}</dd>
            <dt>Evidence due</dt><dd>{dateTime(d.evidence_due_by)}</dd>
            <dt>Opened</dt><dd>{dateTime(d.created_at)}</dd>
          </dl>
        </section>
        <section aria-labelledby="dispute-payment">
          <h2 id="dispute-payment">Payment and provider</h2>
          <dl>
            <dt>Payment</dt><dd><Link to={`/payments/${encodeURIComponent(d.payment_id)}`} class="mono">{d.payment_id}</Link></dd>
            <dt>Provider</dt><dd>{d.provider?.name ?? d.provider?.code ?? '—'}</dd>
            <dt>Provider's id</dt><dd class="mono">{d.provider_dispute_id}</dd>
            <dt>Evidence submitted</dt><dd>{dateTime(d.evidence_submitted_at)}</dd>
          </dl>
        </section>
      </div>
      {answerable ? <DisputeEvidenceForm dispute={d} onDone={finished} /> : <EvidenceView dispute={d} />}
      <TimelineSection id="dispute-history" title="History" events={history} />
    </>
  );
}

function AcceptDispute({ dispute: d, onDone }: { dispute: Dispute; onDone(what: string): void }) {
  const [key, setKey] = useState<string>();
  return (
    <div class="actions">
      <button type="button" class="secondary" onClick={() => setKey(idempotencyKey())}>Accept dispute</button>
      {key && (
        <ConfirmDialog title="Accept this dispute?" confirmLabel="Accept dispute" danger onClose={() => setKey(undefined)}
          onConfirm={async () => {
            await api.post(`/disputes/${encodeURIComponent(d.id)}/accept`, {}, { 'idempotency-key': key });
            onDone('Dispute accepted.');
          }}>
          <p>
            The cardholder keeps {money(d.amount, d.currency)}{d.funds_withdrawn && ', already withdrawn from your balance,'} and
            the dispute closes. You can no longer send evidence. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function EvidenceView({ dispute: d }: { dispute: Dispute }) {
  const given = EVIDENCE_FIELDS.filter((f) => d.evidence[f.name]);
  return (
    <section aria-labelledby="evidence">
      <h2 id="evidence">Evidence</h2>
      {given.length === 0 && d.documents.length === 0 ? <p class="muted">No evidence was given.</p> : (
        <dl>
          {given.map((f) => <Fragment key={f.name}><dt>{f.label}</dt><dd class="prewrap">{d.evidence[f.name]}</dd></Fragment>)}
          {d.documents.length > 0 && <><dt>Documents</dt><dd>{d.documents.map((doc) => doc.filename).join(', ')}</dd></>}
        </dl>
      )}
    </section>
  );
}
