import { api } from '../api/client';
import type { Balance } from '../api/types';
import { ExportLink } from '../components/export-link';
import { ErrorMessage, Loading } from '../components/messages';
import { useLoad } from '../components/use-load';
import { money } from '../format';
import { useSignedIn } from '../session';
import { TableWrap } from '../components/table-wrap';

// Balance figures per currency. We hold no money (custodian is always false): the figures are
// derived from processed transactions and providers' settlements. The API repeats its note on every
// currency; the page says it once, with what each figure means, under the table.

interface Balances {
  custodian: false;
  data: Balance[];
}

const FIGURES: [keyof Balance, string, string][] = [
  ['processed_gross', 'Processed (gross)', 'captured payments less refunds and disputed amounts providers kept'],
  ['fees', 'Fees', 'what providers charged for processing, disputes and settling'],
  ['processed_net', 'Processed (net)', 'processed (gross) less fees'],
  ['settled_by_providers', 'Settled by providers', 'what providers reported paying to your bank account'],
  ['awaiting_provider_settlement', 'Awaiting settlement', 'processed (net) that no provider has settled yet'],
  ['payouts_sent', 'Payouts sent', 'successful payouts with their fees'],
];

export function BalancesPage() {
  const session = useSignedIn();
  const balances = useLoad(() => api.get<Balances>('/balances'), [session.mode]);
  return (
    <>
      <div class="list-head">
        <h1>Balances</h1>
        <ExportLink path="/balances/export.csv" query={{}} what="balances" />
      </div>
      <ErrorMessage error={balances.error} />
      {balances.loading && !balances.data && <Loading what="balances" />}
      {balances.data && balances.data.data.length === 0 && <p class="muted">No money has moved in this mode yet.</p>}
      {balances.data && balances.data.data.length > 0 && (
        <TableWrap label="Balances table">
          <table>
            <thead>
              <tr><th scope="col">Currency</th>{FIGURES.map(([, title]) => <th key={title} scope="col">{title}</th>)}</tr>
            </thead>
            <tbody>
              {balances.data.data.map((b) => (
                <tr key={b.currency}>
                  <th scope="row">{b.currency}</th>
                  {FIGURES.map(([k]) => <td key={k}>{money(b[k] as number, b.currency)}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {balances.data && balances.data.data.length > 0 && <FiguresExplained notes={balances.data.data.map((b) => b.note)} />}
    </>
  );
}

/** The figures' note (the same for every currency; any that differs is shown too) and each figure's meaning, once. */
function FiguresExplained(props: { notes: string[] }) {
  return (
    <div class="small muted">
      {[...new Set(props.notes)].map((note) => <p key={note} role="note">{note}</p>)}
      <details>
        <summary>What each figure means</summary>
        <dl>{FIGURES.map(([k, title, meaning]) => [<dt key={`${k}-t`}>{title}</dt>, <dd key={k}>{meaning}</dd>])}</dl>
      </details>
    </div>
  );
}
