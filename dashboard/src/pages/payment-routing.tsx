import type { TimelineEvent } from '../api/types';
import { TableWrap } from '../components/table-wrap';
import { label, money } from '../format';

// Why the payment went where it did: the strategy of the rule that routed it, the order
// in words, whether it took the exploration share, and each candidate's score. All of it is in the
// timeline's routing.decided entry, which the page already loads: no request of its own.

interface CandidateScore {
  provider_account_id: string;
  provider_name: string;
  score: number | null;
  sample: number | null;
  note: string;
}

/** A score as its strategy means it: a rate, a fee or an expected value in money, a weight (elimination scores none). */
function scoreText(strategy: string, score: number | null, currency: string): string {
  if (score === null) return '—';
  // A no-break space: a narrow column must not leave the % sign alone on a line.
  if (strategy === 'success_rate') return `${(score * 100).toFixed(1)}\u00a0%`;
  if (strategy === 'cheapest' || strategy === 'expected_value') return money(Math.round(score), currency);
  return String(score);
}

export function RoutingDecision({ timeline, currency }: { timeline: TimelineEvent[]; currency: string }) {
  const data = timeline.find((e) => e.type === 'routing.decided')?.data;
  if (typeof data?.strategy !== 'string') return null;
  const strategy = data.strategy;
  const scores = (Array.isArray(data.scores) ? data.scores : []) as CandidateScore[];
  return (
    <section aria-labelledby="routing-decision">
      <h2 id="routing-decision">Routing decision</h2>
      <dl>
        <dt>Strategy</dt><dd>{label(strategy)}</dd>
        <dt>Reason</dt><dd>{typeof data.reason === 'string' && data.reason !== '' ? data.reason : '—'}</dd>
        <dt>Exploration</dt>
        <dd>{data.explored ? 'yes: this payment was put at a less-known provider first on purpose' : 'no'}</dd>
      </dl>
      {scores.length > 0 && (
        <TableWrap label="Candidates table">
          <table>
            <thead>
              <tr><th scope="col">#</th><th scope="col">Provider</th><th scope="col">Score</th><th scope="col">Sample</th><th scope="col">Note</th></tr>
            </thead>
            <tbody>
              {scores.map((c, i) => (
                <tr key={c.provider_account_id}>
                  <td>{i + 1}</td>
                  <td>{c.provider_name} <span class="mono muted">{c.provider_account_id}</span></td>
                  <td>{scoreText(strategy, c.score, currency)}</td>
                  <td>{c.sample ?? '—'}</td>
                  <td>{c.note}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}
