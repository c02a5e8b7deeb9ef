import { api } from '../api/client';
import type { Payout } from '../api/types';
import { Link } from '../components/link';
import { ErrorMessage, Loading } from '../components/messages';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { dateTime, label, money } from '../format';

// One payout: amount, destination (as the merchant sent it, masked), route, fee and failure.

export function PayoutPage({ id }: { id: string }) {
  const payout = useLoad(() => api.get<Payout>(`/payouts/${encodeURIComponent(id)}`), [id]);
  if (payout.error) return <ErrorMessage error={payout.error} />;
  if (!payout.data) return <Loading what="the payout" />;
  const p = payout.data;
  return (
    <>
      <p><Link to="/payouts">← Payouts</Link></p>
      <h1>{money(p.amount, p.currency)} <StatusBadge status={p.status} /></h1>
      <p class="mono muted">{p.id}</p>
      <div class="grid-2">
        <section aria-labelledby="payout-destination">
          <h2 id="payout-destination">Destination</h2>
          <dl>
            <dt>Type</dt><dd>{label(p.destination.type)}</dd>
            <dt>Account</dt><dd>{p.destination.display}</dd>
            <dt>Holder</dt><dd>{p.destination.holder_name ?? '—'}</dd>
            <dt>Country</dt><dd>{p.destination.country ?? '—'}</dd>
          </dl>
        </section>
        <section aria-labelledby="payout-route">
          <h2 id="payout-route">Route</h2>
          <dl>
            <dt>Provider</dt><dd>{p.route.provider?.name ?? '—'}</dd>
            <dt>Provider's id</dt><dd class="mono">{p.route.provider_payout_id ?? '—'}</dd>
            <dt>Rule</dt><dd>{p.route.rule ?? '—'}</dd>
            <dt>Fee</dt><dd>{money(p.fee.amount, p.fee.currency)}</dd>
            <dt>Failure</dt><dd>{p.failure ? `${p.failure.code}${p.failure.message ? `: ${p.failure.message}` : ''}` : '—'}</dd>
            <dt>Created</dt><dd>{dateTime(p.created_at)}</dd>
          </dl>
        </section>
      </div>
    </>
  );
}
