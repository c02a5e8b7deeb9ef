import { api } from '../api/client';
import type { Balance } from '../api/types';
import { ExportLink } from '../components/export-link';
import { ErrorMessage, Loading } from '../components/messages';
import { useLoad } from '../components/use-load';
import { money } from '../format';
import { useSignedIn } from '../session';
import { TableWrap } from '../components/table-wrap';

// Balance figures per currency. We hold no money (custodian is always false): the figures are
// derived from processed transactions and providers' settlements, as each row's note says.

interface Balances {
  custodian: false;
  data: Balance[];
}

const FIGURES: [keyof Balance, string][] = [
  ['processed_gross', 'Processed (gross)'],
  ['fees', 'Fees'],
  ['processed_net', 'Processed (net)'],
  ['settled_by_providers', 'Settled by providers'],
  ['awaiting_provider_settlement', 'Awaiting settlement'],
  ['payouts_sent', 'Payouts sent'],
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
      <p class="muted">
        We never hold your funds: these figures are derived from processed transactions and the providers' settlement reports.
      </p>
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
      {balances.data?.data.map((b) => (
        <p key={b.currency} class="small muted" role="note">{b.currency}: {b.note}</p>
      ))}
    </>
  );
}
