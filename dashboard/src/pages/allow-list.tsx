import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { useLoad } from '../components/use-load';
import { useSubmit } from '../components/use-submit';
import { canWrite, useSignedIn } from '../session';

// The project's IP allow-list: when it has entries, /v1 refuses every other address (403
// ip_not_allowed). Entries are exact addresses or CIDR ranges; the server normalises them. Every
// change is checked by the server first (POST /allowlist/check): a list that would refuse the
// address this member's own requests come from is saved only after a warning naming it, and a
// removal is always confirmed.

interface Check {
  entries: string[];
  client_address: string | null;
  client_allowed: boolean;
}

/** A change waiting for its confirmation: the list it saves, what the notice says, the server's check. */
interface Pending {
  title: string;
  confirmLabel: string;
  next: string[];
  said: string;
  check: Check;
  removal?: string;
  /** The add form, emptied once the entry is saved (kept on Cancel, to correct it). */
  form?: HTMLFormElement;
}

export function AllowListPage() {
  const session = useSignedIn();
  const list = useLoad(() => api.get<{ entries: string[]; client_address?: string | null }>('/allowlist'), []);
  const [notice, setNotice] = useState<string>();
  const [pending, setPending] = useState<Pending>();
  const [removeError, setRemoveError] = useState<unknown>();
  const entries = list.data?.entries ?? [];
  const check = (next: string[]) => api.post<Check>('/allowlist/check', { entries: next });
  const save = async (next: string[], said: string) => {
    await api.put('/allowlist', { entries: next });
    setNotice(said);
    list.reload();
  };
  const { busy, error, onSubmit } = useSubmit(async (v, form) => {
    const checked = await check([...entries, v.entry]);
    const said = `${v.entry} added.`;
    if (checked.client_allowed) {
      await save(checked.entries, said);
      form.reset();
      return;
    }
    setPending({ title: `Add ${v.entry}?`, confirmLabel: 'Add anyway', next: checked.entries, said, check: checked, form });
  });
  const askRemove = async (entry: string) => {
    setRemoveError(undefined);
    try {
      const next = entries.filter((e) => e !== entry);
      const checked = await check(next);
      setPending({ title: `Remove ${entry}?`, confirmLabel: 'Remove', next, said: `${entry} removed.`, check: checked, removal: entry });
    } catch (e) {
      setRemoveError(e);
    }
  };

  return (
    <>
      <h1>IP allow-list</h1>
      <p>
        {entries.length === 0
          ? 'The list is empty: API requests are accepted from any address.'
          : 'Only these addresses may call the API with this project’s keys.'}
      </p>
      {list.data?.client_address && (
        <p class="muted">
          Your address, as this deployment sees it: <span class="mono">{list.data.client_address}</span>
        </p>
      )}
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={list.error} />
      <ErrorMessage error={removeError} />
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
              <button type="button" class="danger small" onClick={() => askRemove(e)} aria-label={`Remove ${e}`}>Remove</button>
            )}
          </li>
        ))}
      </ul>
      {pending && (
        <ConfirmDialog title={pending.title} confirmLabel={pending.confirmLabel} danger onClose={() => setPending(undefined)}
          onConfirm={async () => { await save(pending.next, pending.said); pending.form?.reset(); }}>
          {pending.removal && (
            <p>
              {pending.next.length === 0
                ? 'The list becomes empty: requests are accepted from any address.'
                : `Requests from ${pending.removal} are refused from now on.`}
            </p>
          )}
          {!pending.check.client_allowed && <OwnAddressWarning address={pending.check.client_address} />}
        </ConfirmDialog>
      )}
    </>
  );
}

function OwnAddressWarning({ address }: { address: string | null }) {
  return (
    <p class="warning" role="alert">
      {address
        ? <>Your own address, <span class="mono">{address}</span>, is not on this list: </>
        : <>The address you are using cannot be told, so it is not on this list: </>}
      API calls with this project’s keys from this computer will be refused (403 ip_not_allowed).
      Your dashboard session is not affected.
    </p>
  );
}
