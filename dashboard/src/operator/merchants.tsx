import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { ListView, OlderNewest } from '../components/list-page';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { dateTime } from '../format';
import type { CursorPage, OperatorMerchantView } from './types';

// Every merchant of the deployment, newest first, with where its verification stands.

export function MerchantsPage() {
  const [before, setBefore] = useState<string>();
  const merchants = useLoad(() => api.get<CursorPage<OperatorMerchantView>>('/operator/merchants', { before }), [before]);
  return (
    <>
      <h1>Merchants</h1>
      <ListView
        list={merchants} what="merchants" table="Merchants table"
        columns={['Name', 'Verification', 'Owner', 'Created', 'Id']}
        row={(m) => (
          <tr key={m.id}>
            <td>{m.name}</td>
            <td><StatusBadge status={m.verification_status} /></td>
            <td>{m.owner_email ?? '—'}</td>
            <td>{dateTime(m.created_at)}</td>
            <td class="mono">{m.id}</td>
          </tr>
        )}
      />
      <OlderNewest before={before} next={merchants.data?.next_cursor} onMove={setBefore} />
    </>
  );
}
