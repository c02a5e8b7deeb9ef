import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { ErrorMessage, Loading, Notice } from '../components/messages';
import { useLoad } from '../components/use-load';
import { dateTime } from '../format';
import type { VerificationSubmissionView } from './types';

// Submissions waiting for a decision, the longest waiting first, each with the company's details and
// the documents' references as submitted. Approving opens live mode for the merchant; rejecting
// needs a reason, which the merchant reads on its verification page and may answer by submitting again.

type Decision = { kind: 'approve' | 'reject'; submission: VerificationSubmissionView };

export function VerificationQueuePage() {
  const queue = useLoad(() => api.get<{ data: VerificationSubmissionView[] }>('/operator/verifications', { status: 'pending' }), []);
  const [deciding, setDeciding] = useState<Decision>();
  const [done, setDone] = useState<string>();
  const [reason, setReason] = useState('');

  const decide = async ({ kind, submission }: Decision) => {
    const path = `/operator/merchants/${encodeURIComponent(submission.merchant_id)}/${kind === 'approve' ? 'verify' : 'reject'}`;
    await api.post(path, kind === 'reject' ? { reason } : {});
    setDone(`${submission.merchant_name}: ${kind === 'approve' ? 'approved' : 'rejected'}.`);
    setReason('');
    queue.reload();
  };

  return (
    <>
      <h1>Verification queue</h1>
      {done && <Notice>{done}</Notice>}
      <ErrorMessage error={queue.error} />
      {queue.loading && !queue.data && <Loading what="the queue" />}
      {queue.data?.data.length === 0 && <p>Nothing is waiting for a decision.</p>}
      <ul class="cards" aria-label="Submissions waiting">
        {queue.data?.data.map((s) => (
          <li class="card" key={s.id}>
            <h2>{s.merchant_name}</h2>
            <dl>
              <dt>Company</dt><dd>{s.company_name}</dd>
              <dt>Registration number</dt><dd>{s.registration_number}</dd>
              <dt>Country</dt><dd>{s.country}</dd>
              <dt>Documents</dt>
              <dd>
                <ul>{s.documents.map((d) => <li key={d} class="mono">{d}</li>)}</ul>
              </dd>
              <dt>Submitted</dt><dd>{dateTime(s.submitted_at)} by {s.submitted_by}</dd>
              <dt>Merchant</dt><dd class="mono">{s.merchant_id}</dd>
            </dl>
            <div class="actions">
              <button type="button" onClick={() => setDeciding({ kind: 'approve', submission: s })} aria-label={`Approve ${s.merchant_name}`}>Approve</button>
              <button type="button" class="danger" onClick={() => setDeciding({ kind: 'reject', submission: s })} aria-label={`Reject ${s.merchant_name}`}>Reject</button>
            </div>
          </li>
        ))}
      </ul>
      {deciding?.kind === 'approve' && (
        <ConfirmDialog title={`Approve ${deciding.submission.merchant_name}?`} confirmLabel="Approve" onClose={() => setDeciding(undefined)}
          onConfirm={() => decide(deciding)}>
          <p>The merchant can then create live keys and take live payments.</p>
        </ConfirmDialog>
      )}
      {deciding?.kind === 'reject' && (
        <ConfirmDialog title={`Reject ${deciding.submission.merchant_name}?`} confirmLabel="Reject" danger onClose={() => setDeciding(undefined)}
          onConfirm={() => decide(deciding)}>
          <Field id="reject-reason" label="Reason (the merchant reads it)">
            <textarea id="reject-reason" required rows={3} maxLength={500} value={reason} onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} />
          </Field>
        </ConfirmDialog>
      )}
    </>
  );
}
