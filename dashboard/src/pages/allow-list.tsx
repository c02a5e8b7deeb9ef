import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { useLoad } from '../components/use-load';
import { useSubmit } from '../components/use-submit';
import { canWrite, useSignedIn } from '../session';

// The project's IP allow-list: when it has entries, /v1 refuses every other address (403
// ip_not_allowed). Entries are exact addresses or CIDR ranges; the server normalises them.

export function AllowListPage() {
  const session = useSignedIn();
  const list = useLoad(() => api.get<{ entries: string[] }>('/allowlist'), []);
  const [notice, setNotice] = useState<string>();
  const [removing, setRemoving] = useState<string>();
  const entries = list.data?.entries ?? [];
  const save = async (next: string[], said: string) => {
    await api.put('/allowlist', { entries: next });
    setNotice(said);
    list.reload();
  };
  const { busy, error, onSubmit } = useSubmit(async (v, form) => {
    await save([...entries, v.entry], `${v.entry} added.`);
    form.reset();
  });

  return (
    <>
      <h1>IP allow-list</h1>
      <p>
        {entries.length === 0
          ? 'The list is empty: API requests are accepted from any address.'
          : 'Only these addresses may call the API with this project’s keys.'}
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={list.error} />
      {list.loading && !list.data && <Loading what="the allow-list" />}
      {canWrite(session) && (
        <form class="inline-form" onSubmit={onSubmit} aria-label="Add an address">
          <Field id="entry" label="Address or CIDR range" hint="For example 203.0.113.7, 10.0.0.0/8 or 2001:db8::/32.">
            <input id="entry" name="entry" required class="mono" aria-describedby="entry-hint" />
          </Field>
          <button type="submit" disabled={busy}>Add</button>
          <ErrorMessage error={error} />
        </form>
      )}
      <ul class="plain entries" aria-label="Allowed addresses">
        {entries.map((e) => (
          <li key={e}>
            <span class="mono">{e}</span>
            {canWrite(session) && (
              <button type="button" class="danger small" onClick={() => setRemoving(e)} aria-label={`Remove ${e}`}>Remove</button>
            )}
          </li>
        ))}
      </ul>
      {removing && (
        <ConfirmDialog title={`Remove ${removing}?`} confirmLabel="Remove" danger onClose={() => setRemoving(undefined)}
          onConfirm={() => save(entries.filter((e) => e !== removing), `${removing} removed.`)}>
          <p>
            {entries.length === 1
              ? 'The list becomes empty: requests are accepted from any address.'
              : 'Requests from this address are refused from now on.'}
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
