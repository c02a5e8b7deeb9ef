import { api } from '../api/client';
import type { Verification } from '../api/types';
import { Field } from '../components/field';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { StatusBadge } from '../components/status-badge';
import { useLoad } from '../components/use-load';
import { useSubmit } from '../components/use-submit';
import { dateTime } from '../format';
import { isOwner, loadSession, useSession, useSignedIn } from '../session';

// Business verification: the company's details and its documents' references; live keys and
// live payments wait until an operator approves it.

export function VerificationPage() {
  const session = useSignedIn();
  const { set } = useSession();
  const current = useLoad(() => api.get<Verification>('/verification'), []);
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    await api.post('/verification', {
      company_name: v.company_name, registration_number: v.registration_number, country: v.country.toUpperCase(),
      documents: v.documents.split('\n').map((d) => d.trim()).filter(Boolean),
    });
    current.reload();
    set(await loadSession());
  });
  const status = current.data?.status ?? 'not_submitted';
  // Only once the stored details are in: a form shown before would lose what was typed when they land.
  const editable = current.data !== undefined && isOwner(session) && (status === 'not_submitted' || status === 'rejected');

  return (
    <>
      <h1>Business verification</h1>
      <ErrorMessage error={current.error} />
      {current.loading && !current.data && <Loading what="the verification" />}
      {current.data && (
        <p>
          Status: <StatusBadge status={status} />
          {current.data.submitted_at && <> · submitted {dateTime(current.data.submitted_at)}</>}
        </p>
      )}
      {status === 'rejected' && current.data?.rejection_reason && <Notice>Rejected: {current.data.rejection_reason} Correct the details and submit again.</Notice>}
      {status === 'approved' && <Notice>Verified: live keys can be created.</Notice>}
      {status === 'pending' && <Notice>Submitted: an operator reviews it; this page shows the answer.</Notice>}
      {editable && (
        <form class="panel" onSubmit={onSubmit} aria-label="Verification details" key={current.data?.submitted_at ?? 'new'}>
          <Field id="company_name" label="Registered company name">
            <input id="company_name" name="company_name" required autocomplete="organization" defaultValue={current.data?.company_name ?? ''} />
          </Field>
          <Field id="registration_number" label="Registration number">
            <input id="registration_number" name="registration_number" required defaultValue={current.data?.registration_number ?? ''} />
          </Field>
          <Field id="country" label="Country (2 letters)">
            <input id="country" name="country" required pattern="[A-Za-z]{2}" maxLength={2} size={3} autocomplete="country" defaultValue={current.data?.country ?? ''} />
          </Field>
          <Field id="documents" label="Documents' references, one a line" hint="For example the file names or ids of the certificate of incorporation and the director's identity document.">
            <textarea id="documents" name="documents" required rows={3} aria-describedby="documents-hint" defaultValue={(current.data?.documents ?? []).join('\n')} />
          </Field>
          <ErrorMessage error={error} />
          <button type="submit" disabled={busy}>Submit for verification</button>
        </form>
      )}
    </>
  );
}
