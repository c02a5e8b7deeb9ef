import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { DisputeSummary, Payment, Refund, TimelineEvent } from '../api/types';
import { Link } from '../components/link';
import { ErrorMessage, Loading } from '../components/messages';
import { StatusBadge } from '../components/status-badge';
import { TimelineSection } from '../components/timeline-section';
import { useLoad } from '../components/use-load';
import { dateTime, label, money } from '../format';
import { canOperate, useSignedIn } from '../session';
import { daysLeftText } from './disputes';
import { PaymentActions } from './payment-actions';
import { PaymentMethodCredentials } from './payment-method-credentials';
import { RoutingDecision } from './payment-routing';
import { TableWrap } from '../components/table-wrap';

// One payment: amounts, route, risk, why routing ordered its providers so, customer, metadata,
// attempts, its stored method's credentials, refunds, disputes and the timeline, with its actions.

interface Detail {
  payment: Payment;
  timeline: TimelineEvent[];
  refunds: Refund[];
}

async function loadDetail(id: string): Promise<Detail> {
  const path = `/payments/${encodeURIComponent(id)}`;
  const [payment, timeline, refunds] = await Promise.all([
    api.get<Payment>(path),
    api.get<{ data: TimelineEvent[] }>(`${path}/timeline`),
    api.get<{ data: Refund[] }>(`${path}/refunds`),
  ]);
  return { payment, timeline: timeline.data, refunds: refunds.data };
}

export function PaymentPage({ id }: { id: string }) {
  const session = useSignedIn();
  const detail = useLoad(() => loadDetail(id), [id]);
  const [done, setDone] = useState<string>();
  if (detail.error) return <ErrorMessage error={detail.error} />;
  if (!detail.data) return <Loading what="the payment" />;
  const { payment: p, timeline, refunds } = detail.data;
  return (
    <>
      <p><Link to="/payments">← Payments</Link></p>
      <h1>
        {money(p.amount, p.currency)} <StatusBadge status={p.status} />
      </h1>
      <p class="mono muted">{p.id}</p>
      {done && <p class="notice" role="status">{done}</p>}
      {canOperate(session) && (
        <PaymentActions payment={p} onDone={(what) => { setDone(what); detail.reload(); }} />
      )}
      <div class="grid-2">
        <section aria-labelledby="amounts">
          <h2 id="amounts">Amounts</h2>
          <dl>
            <dt>Amount</dt><dd>{money(p.amount, p.currency)}</dd>
            <dt>Captured</dt><dd>{money(p.captured_amount, p.currency)}</dd>
            <dt>Refunded</dt><dd>{money(p.refunded_amount, p.currency)}</dd>
            <dt>Fee</dt><dd>{money(p.fee.amount, p.fee.currency)}</dd>
            <dt>Capture</dt><dd>{p.capture_method}</dd>
            <dt>Method</dt><dd>{label(p.payment_method.type)}</dd>
            <dt>Reference</dt><dd>{p.reference ?? '—'}</dd>
            <dt>Description</dt><dd>{p.description ?? '—'}</dd>
            <dt>Created</dt><dd>{dateTime(p.created_at)}</dd>
          </dl>
        </section>
        <section aria-labelledby="route">
          <h2 id="route">Route and risk</h2>
          <dl>
            <dt>Provider</dt><dd>{p.route.provider?.name ?? '—'}</dd>
            <dt>Provider payment</dt><dd class="mono">{p.route.provider_payment_id ?? '—'}</dd>
            <dt>Rule</dt><dd>{p.route.rule ?? '—'}</dd>
            <dt>Attempts</dt><dd>{p.route.attempts}</dd>
            {(p.route.skipped ?? []).length > 0 && (
              <><dt>Never tried</dt><dd>{[...new Set(p.route.skipped.map((k) => k.reason))].join('; ')}</dd></>
            )}
            <dt>Risk score</dt><dd>{p.risk.score ?? '—'}</dd>
            <dt>Processing time</dt><dd>{p.processing_time_ms === null ? '—' : `${p.processing_time_ms} ms`}</dd>
            {p.failure && (<><dt>Failure</dt><dd>{p.failure.code}: {p.failure.message}</dd></>)}
            {p.failure?.decline_reason && (<><dt>Decline reason</dt><dd><span class="mono">{p.failure.decline_reason}</span></dd></>)}
          </dl>
        </section>
      </div>
      <RoutingDecision timeline={timeline} currency={p.currency} />
      <div class="grid-2">
        <CustomerSection payment={p} />
        <MetadataSection metadata={p.metadata} />
      </div>
      <Attempts payment={p} />
      {p.payment_method.id && <PaymentMethodCredentials methodId={p.payment_method.id} />}
      <Refunds refunds={refunds} />
      <Disputes disputes={p.disputes ?? []} />
      <TimelineSection id="timeline" title="Timeline" events={timeline} />
    </>
  );
}

function CustomerSection({ payment: p }: { payment: Payment }) {
  const c = p.customer ?? {};
  const rows: [string, string | null | undefined][] = [
    ['Email', c.email], ['Name', c.name], ['Country', c.country ?? p.country], ['Customer id', c.id], ['External id', c.external_id],
  ];
  const shown = rows.filter(([, v]) => v);
  return (
    <section aria-labelledby="customer">
      <h2 id="customer">Customer</h2>
      {shown.length === 0 ? <p class="muted">No customer details were sent with this payment.</p> : (
        <dl>{shown.map(([k, v]) => <Fragment key={k}><dt>{k}</dt><dd>{v}</dd></Fragment>)}</dl>
      )}
    </section>
  );
}

function MetadataSection({ metadata }: { metadata: Record<string, unknown> }) {
  const entries = Object.entries(metadata ?? {});
  return (
    <section aria-labelledby="metadata">
      <h2 id="metadata">Metadata</h2>
      {entries.length === 0 ? <p class="muted">No metadata.</p> : (
        <dl>
          {entries.map(([k, v]) => (
            <Fragment key={k}><dt class="mono">{k}</dt><dd class="mono">{typeof v === 'string' ? v : JSON.stringify(v)}</dd></Fragment>
          ))}
        </dl>
      )}
    </section>
  );
}

function Attempts({ payment }: { payment: Payment }) {
  return (
    <section aria-labelledby="attempts">
      <h2 id="attempts">Attempts</h2>
      {payment.attempts.length === 0 ? <p class="muted">No provider attempt.</p> : (
        <TableWrap label="Attempts table">
          <table>
            <thead>
              <tr><th scope="col">#</th><th scope="col">Provider</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Provider says</th><th scope="col">Latency</th></tr>
            </thead>
            <tbody>
              {payment.attempts.map((a) => (
                <tr key={a.id}>
                  <td>{a.attempt_number}</td>
                  <td>{a.provider_name ?? a.provider_id}</td>
                  <td>{a.vault ? `forwarded via ${a.vault} vault` : 'direct'}</td>
                  <td><StatusBadge status={a.status} /></td>
                  <td>{a.outcome ? label(a.outcome) : '—'}</td>
                  <td>{[a.provider_code, a.provider_message].filter(Boolean).join(': ') || '—'}</td>
                  <td>{a.latency_ms === null ? '—' : `${a.latency_ms} ms`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

function Refunds({ refunds }: { refunds: Refund[] }) {
  return (
    <section aria-labelledby="refunds">
      <h2 id="refunds">Refunds</h2>
      {refunds.length === 0 ? <p class="muted">No refunds.</p> : (
        <ul class="plain">
          {refunds.map((r) => (
            <li key={r.id}>
              {money(r.amount, r.currency)} <StatusBadge status={r.status} /> <span class="mono muted">{r.id}</span>
              {r.reason && <> · {r.reason}</>} · {dateTime(r.created_at)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Disputes({ disputes }: { disputes: DisputeSummary[] }) {
  if (disputes.length === 0) return null;
  return (
    <section aria-labelledby="payment-disputes">
      <h2 id="payment-disputes">Disputes</h2>
      <ul class="plain">
        {disputes.map((d) => (
          <li key={d.id}>
            <Link to={`/disputes/${encodeURIComponent(d.id)}`}>{money(d.amount, d.currency)}</Link> <StatusBadge status={d.status} />
            {' '}{label(d.reason)} · {label(d.stage)}{d.status === 'needs_response' && <> · {daysLeftText(d)}</>} · opened {dateTime(d.created_at)}
          </li>
        ))}
      </ul>
    </section>
  );
}
