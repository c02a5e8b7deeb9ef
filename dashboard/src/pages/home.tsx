import { useMemo, useState } from 'preact/hooks';
import { api } from '../api/client';
import type { Page, Payment } from '../api/types';
import { metrics, PERIODS, type Breakdown, type Metrics, type Period } from '../charts/metrics';
import { SeriesChart } from '../charts/series-chart';
import { ErrorMessage, Loading } from '../components/messages';
import { useLoad } from '../components/use-load';
import { dateTime, label, money, percent } from '../format';
import { useSignedIn } from '../session';

// Payment volume, success rate and failure reasons over the last day, week or month, and by
// provider and method. Read from the payments list (at most MAX_PAGES pages of the period).

const PAGE_SIZE = 200;
const MAX_PAGES = 10;

async function paymentsSince(from: Date): Promise<{ payments: Payment[]; complete: boolean }> {
  const payments: Payment[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await api.get<Page<Payment>>('/payments', { from: from.toISOString(), limit: PAGE_SIZE, cursor });
    payments.push(...page.data);
    if (!page.has_more || !page.next_cursor) return { payments, complete: true };
    cursor = page.next_cursor;
  }
  return { payments, complete: false };
}

export function HomePage() {
  const session = useSignedIn();
  const [period, setPeriod] = useState<Period>('week');
  const [now] = useState(() => Date.now());
  const loaded = useLoad(() => paymentsSince(new Date(now - PERIODS[period].span)), [period, session.mode]);
  const m = useMemo(() => loaded.data && metrics(loaded.data.payments, period, now), [loaded.data, period]);

  return (
    <>
      <h1>Home</h1>
      <fieldset class="segmented">
        <legend>Period</legend>
        {(Object.keys(PERIODS) as Period[]).map((p) => (
          <label key={p}>
            <input type="radio" name="period" value={p} checked={period === p} onChange={() => setPeriod(p)} />
            {PERIODS[p].text}
          </label>
        ))}
      </fieldset>
      <ErrorMessage error={loaded.error} />
      {loaded.loading && <Loading what="figures" />}
      {m && loaded.data && <Figures m={m} period={period} complete={loaded.data.complete} />}
    </>
  );
}

function Figures({ m, period, complete }: { m: Metrics; period: Period; complete: boolean }) {
  if (m.total === 0) return <p class="muted">No payments in this period yet. Create a test key and take your first payment.</p>;
  const cur = m.currency ?? 'EUR';
  const fmtTime = (t: number) => dateTime(new Date(t * 1000).toISOString());
  return (
    <>
      {!complete && <p class="notice">Figures cover the latest {m.total} payments of the period.</p>}
      <div class="grid-2">
        <section aria-labelledby="volume-title">
          <h2 id="volume-title">Volume ({cur})</h2>
          <SeriesChart title={`Succeeded payment volume in ${cur}, ${PERIODS[period].text.toLowerCase()}`} times={m.times}
            values={m.volume} bars format={(v) => money(v, cur)} />
          <DataTable caption="Volume" times={m.times} values={m.volume.map((v) => money(v, cur))} fmtTime={fmtTime} />
        </section>
        <section aria-labelledby="rate-title">
          <h2 id="rate-title">Success rate</h2>
          <SeriesChart title={`Success rate, ${PERIODS[period].text.toLowerCase()}`} times={m.times} values={m.successRate}
            max={1} format={(v) => percent(v)} />
          <DataTable caption="Success rate" times={m.times} values={m.successRate.map(percent)} fmtTime={fmtTime} />
        </section>
      </div>
      <section aria-labelledby="failures-title">
        <h2 id="failures-title">Failure reasons</h2>
        {m.failures.length === 0 ? <p class="muted">No failed payments.</p> : (
          <ul class="bars">
            {m.failures.map((f) => (
              <li key={f.code}>
                <span class="mono">{f.code}</span>
                <meter min={0} max={m.failures[0].count} value={f.count} aria-label={`${f.code}: ${f.count}`} />
                <span>{f.count}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <div class="grid-2">
        <BreakdownTable title="By provider" rows={m.byProvider} currency={cur} />
        <BreakdownTable title="By method" rows={m.byMethod} currency={cur} />
      </div>
    </>
  );
}

function DataTable(props: { caption: string; times: number[]; values: string[]; fmtTime(t: number): string }) {
  return (
    <details>
      <summary>{props.caption} as a table</summary>
      <div class="table-wrap">
        <table>
          <thead><tr><th scope="col">From</th><th scope="col">{props.caption}</th></tr></thead>
          <tbody>
            {props.times.map((t, i) => <tr key={t}><td>{props.fmtTime(t)}</td><td>{props.values[i]}</td></tr>)}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function BreakdownTable({ title, rows, currency }: { title: string; rows: Breakdown[]; currency: string }) {
  return (
    <section>
      <h2>{title}</h2>
      <div class="table-wrap" tabIndex={0} role="region" aria-label={title}>
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Payments</th><th scope="col">Success rate</th><th scope="col">Volume</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                <td>{label(r.key)}</td>
                <td>{r.count}</td>
                <td>{percent(r.succeeded + r.failed === 0 ? null : r.succeeded / (r.succeeded + r.failed))}</td>
                <td>{money(r.volume, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
