import { useMemo, useState } from 'preact/hooks';
import { api } from '../api/client';
import type { Page, Payment } from '../api/types';
import { DECLINE_REASON_TEXT, isDeclineReason } from '../api/contract';
import { currenciesOf, metrics, PERIODS, type Breakdown, type Headline, type Metrics, type Period } from '../charts/metrics';
import { providerHealth, type ProviderHealth } from '../charts/provider-health';
import { SeriesChart } from '../charts/series-chart';
import { ErrorMessage, Loading } from '../components/messages';
import { useLoad } from '../components/use-load';
import { dateTime, label, money, percent } from '../format';
import { useSignedIn } from '../session';
import { TableWrap } from '../components/table-wrap';

// The period's headline figures, volume, success rate and failure reasons (the providers' decline
// reasons), and the same by provider and method, for one currency at a time (a selector when the
// period has several: amounts in different currencies are never added); and each provider's health
// from all its attempts. Read from the payments list (at most MAX_PAGES pages).

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
  const [chosen, setChosen] = useState<string>();
  const [now] = useState(() => Date.now());
  const loaded = useLoad(() => paymentsSince(new Date(now - PERIODS[period].span)), [period, session.mode]);
  const currencies = useMemo(() => (loaded.data ? currenciesOf(loaded.data.payments) : []), [loaded.data]);
  const currency = chosen && currencies.includes(chosen) ? chosen : currencies[0];
  const m = useMemo(
    () => loaded.data && currency ? metrics(loaded.data.payments, currency, period, now) : undefined,
    [loaded.data, currency, period],
  );
  const health = useMemo(() => (loaded.data ? providerHealth(loaded.data.payments) : []), [loaded.data]);

  return (
    <>
      <h1>Home</h1>
      <div class="home-controls">
        <fieldset class="segmented">
          <legend>Period</legend>
          {(Object.keys(PERIODS) as Period[]).map((p) => (
            <label key={p}>
              <input type="radio" name="period" value={p} checked={period === p} onChange={() => setPeriod(p)} />
              {PERIODS[p].text}
            </label>
          ))}
        </fieldset>
        {currencies.length > 0 && (
          <div class="field">
            <label for="home-currency">Currency</label>
            <select id="home-currency" value={currency} onChange={(e) => setChosen(e.currentTarget.value)}>
              {currencies.map((c) => <option key={c} value={c}>{c}</option>)}
            </select>
          </div>
        )}
      </div>
      <ErrorMessage error={loaded.error} />
      {loaded.loading && <Loading what="figures" />}
      {loaded.data && !m && <p class="muted">No payments in this period yet. Create a test key and take your first payment.</p>}
      {m && loaded.data && <Figures m={m} period={period} complete={loaded.data.complete} others={currencies.length - 1} />}
      {health.length > 0 && <HealthTable rows={health} />}
    </>
  );
}

function Figures({ m, period, complete, others }: { m: Metrics; period: Period; complete: boolean; others: number }) {
  const cur = m.currency;
  const fmtTime = (t: number) => dateTime(new Date(t * 1000).toISOString());
  return (
    <>
      {!complete && <p class="notice">Figures cover the latest payments of the period.</p>}
      {others > 0 && (
        <p class="muted">
          Every figure below is of {cur} payments only; {others === 1 ? 'one other currency' : `${others} other currencies`} in the selector.
        </p>
      )}
      <HeadlineFigures h={m.headline} currency={cur} />
      <div class="grid-2">
        <section aria-labelledby="volume-title">
          <h2 id="volume-title">Volume ({cur})</h2>
          <SeriesChart title={`Succeeded payment volume in ${cur}, ${PERIODS[period].text.toLowerCase()}`} times={m.times}
            values={m.volume} bars format={(v) => money(v, cur)} />
          <DataTable caption="Volume" times={m.times} values={m.volume.map((v) => money(v, cur))} fmtTime={fmtTime} />
        </section>
        <section aria-labelledby="rate-title">
          <h2 id="rate-title">Success rate ({cur})</h2>
          <SeriesChart title={`Success rate of ${cur} payments, ${PERIODS[period].text.toLowerCase()}`} times={m.times}
            values={m.successRate} max={1} format={(v) => percent(v)} />
          <DataTable caption="Success rate" times={m.times} values={m.successRate.map(percent)} fmtTime={fmtTime} />
        </section>
      </div>
      <section aria-labelledby="failures-title">
        <h2 id="failures-title">Failure reasons ({cur})</h2>
        {m.failures.length === 0 ? <p class="muted">No failed payments.</p> : (
          <ul class="bars failures">
            {m.failures.map((f) => (
              <li key={f.reason} title={isDeclineReason(f.reason) ? DECLINE_REASON_TEXT[f.reason] : undefined}>
                <span class="mono">{f.reason}</span>
                <meter min={0} max={m.failures[0].count} value={f.count} aria-label={`${f.reason}: ${f.count}`} />
                <span>{f.count}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <div class="grid-2">
        <BreakdownTable title={`By provider (${cur})`} rows={m.byProvider} currency={cur} />
        <BreakdownTable title={`By method (${cur})`} rows={m.byMethod} currency={cur} />
      </div>
    </>
  );
}

function HeadlineFigures({ h, currency }: { h: Headline; currency: string }) {
  const figures = [
    { name: 'Gross', value: money(h.gross, currency), note: 'captured by succeeded payments' },
    { name: 'Net', value: money(h.net, currency), note: `after ${money(h.refunded, currency)} refunded and ${money(h.fees, currency)} fees` },
    { name: 'Payments', value: String(h.payments), note: `in ${currency}` },
    { name: 'Success rate', value: percent(h.successRate), note: `of decided ${currency} payments` },
    { name: 'Disputed', value: money(h.disputed, currency), note: `${h.disputes === 1 ? 'one dispute' : `${h.disputes} disputes`} of these payments` },
    { name: 'Dispute rate', value: percent(h.disputeRate), note: `disputes per succeeded ${currency} payment` },
  ];
  return (
    <section aria-label={`Headline figures in ${currency}`}>
      <dl class="figures">
        {figures.map((f) => (
          <div key={f.name} class="figure">
            <dt>{f.name}</dt>
            <dd><strong>{f.value}</strong><span class="muted small">{f.note}</span></dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function DataTable(props: { caption: string; times: number[]; values: string[]; fmtTime(t: number): string }) {
  return (
    <details>
      <summary>{props.caption} as a table</summary>
      <TableWrap>
        <table>
          <thead><tr><th scope="col">From</th><th scope="col">{props.caption}</th></tr></thead>
          <tbody>
            {props.times.map((t, i) => <tr key={t}><td>{props.fmtTime(t)}</td><td>{props.values[i]}</td></tr>)}
          </tbody>
        </table>
      </TableWrap>
    </details>
  );
}

function BreakdownTable({ title, rows, currency }: { title: string; rows: Breakdown[]; currency: string }) {
  return (
    <section>
      <h2>{title}</h2>
      <TableWrap label={title}>
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Payments</th><th scope="col">Success rate</th><th scope="col">Volume</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                <td>{label(r.key)}</td>
                <td>{r.count}</td>
                <td>{percent(r.succeeded + r.failed === 0 ? null : r.succeeded / (r.succeeded + r.failed))}</td>
                <td class="nowrap">{money(r.volume, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}

/** Each provider's attempts over the period, every currency: an outage shows here while it happens. */
function HealthTable({ rows }: { rows: ProviderHealth[] }) {
  const title = 'Provider health';
  return (
    <section aria-labelledby="health-title">
      <h2 id="health-title">{title}</h2>
      <p class="muted small">Every attempt of the period's payments in all currencies, not only the provider that took each payment.</p>
      <TableWrap label={title}>
        <table>
          <thead>
            <tr>
              <th scope="col">Provider</th><th scope="col">Health</th><th scope="col">First tried</th>
              <th scope="col">Approval when it answers</th><th scope="col">Technical failures</th><th scope="col">Failovers away</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.provider}>
                <td>{r.provider}</td>
                <td><span class={`badge ${r.failing ? 'bad' : 'good'}`}>{r.failing ? 'failing' : 'healthy'}</span></td>
                <td>{percent(r.firstShare)} <span class="muted small">({r.firstAttempts})</span></td>
                <td>{percent(r.approvalRate)} <span class="muted small">of {r.answered}</span></td>
                <td>{r.technical} <span class="muted small">of {r.attempts}</span></td>
                <td>{r.failoversAway}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}
