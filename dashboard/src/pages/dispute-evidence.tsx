import { useState } from 'preact/hooks';
import { api, idempotencyKey } from '../api/client';
import type { Dispute, DisputeDocument, DisputeEvidence } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { ErrorMessage } from '../components/messages';
import { MAX_DISPUTE_DOCUMENT_BYTES } from '../../../services/contract/limits';

// A dispute's evidence while it needs a response: the structured fields, documents uploaded one by
// one (PDF, PNG or JPEG up to 4 MiB, as POST /v1/disputes/{id}/documents takes them), saved as a
// draft or submitted to the provider behind a confirmation. Every uploaded document goes with it.

type TextField = Exclude<keyof DisputeEvidence, 'documents'>;

export const EVIDENCE_FIELDS: { name: TextField; label: string; hint?: string; long: boolean }[] = [
  { name: 'product_description', label: 'Product or service', hint: 'What was sold, and when.', long: true },
  { name: 'customer_communication', label: 'Communication with the customer', long: true },
  { name: 'shipping_carrier', label: 'Shipping carrier', long: false },
  { name: 'shipping_tracking_number', label: 'Tracking number', hint: 'Proof of delivery wins most "not received" and fraud disputes.', long: false },
  { name: 'refund_policy', label: 'Refund policy', long: true },
  { name: 'uncategorized_text', label: 'Anything else', long: true },
];

const DOCUMENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg'];
/** As many as the evidence may name (DisputeEvidenceRequest's documents). */
const MAX_DOCUMENTS = 10;

function base64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(new Error(`${file.name} could not be read.`));
    reader.readAsDataURL(file);
  });
}

const kib = (n: number) => `${Math.max(1, Math.round(n / 1024))} KiB`;

export function DisputeEvidenceForm({ dispute: d, onDone }: { dispute: Dispute; onDone(what: string): void }) {
  const path = `/disputes/${encodeURIComponent(d.id)}`;
  const [values, setValues] = useState<Record<TextField, string>>(
    () => Object.fromEntries(EVIDENCE_FIELDS.map((f) => [f.name, d.evidence[f.name] ?? ''])) as Record<TextField, string>,
  );
  const [documents, setDocuments] = useState<DisputeDocument[]>(d.documents);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [confirmKey, setConfirmKey] = useState<string>();

  const send = (submit: boolean, key: string) =>
    api.post<Dispute>(`${path}/evidence`, { ...values, documents: documents.map((doc) => doc.id), submit }, { 'idempotency-key': key });

  const run = async (what: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await what();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const upload = (e: Event) => {
    e.preventDefault();
    const input = (e.currentTarget as HTMLFormElement).elements.namedItem('document') as HTMLInputElement;
    const file = input.files?.[0];
    void run(async () => {
      if (!file) throw new Error('Choose a file to upload.');
      if (!DOCUMENT_TYPES.includes(file.type)) throw new Error(`${file.name} is not a PDF, PNG or JPEG file.`);
      if (file.size > MAX_DISPUTE_DOCUMENT_BYTES) throw new Error(`${file.name} is larger than 4 MiB.`);
      const doc = await api.post<DisputeDocument>(`${path}/documents`,
        { filename: file.name, type: file.type, content: await base64(file) }, { 'idempotency-key': idempotencyKey() });
      setDocuments((docs) => [...docs, doc]);
      input.value = '';
    });
  };

  const save = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await send(false, idempotencyKey());
      onDone('Evidence saved as a draft. Submit it before the deadline.');
    });
  };

  return (
    <section aria-labelledby="evidence" class="evidence-form">
      <h2 id="evidence">Evidence</h2>
      <p class="muted">Saved evidence stays a draft until you submit it; once submitted it goes to the provider and cannot be changed.</p>
      <form id="evidence-form" onSubmit={save}>
        {EVIDENCE_FIELDS.map((f) => (
          <Field key={f.name} id={`evidence-${f.name}`} label={f.label} hint={f.hint}>
            {f.long ? (
              <textarea id={`evidence-${f.name}`} rows={3} maxLength={20000} value={values[f.name]}
                aria-describedby={f.hint ? `evidence-${f.name}-hint` : undefined}
                onInput={(e) => setValues({ ...values, [f.name]: e.currentTarget.value })} />
            ) : (
              <input id={`evidence-${f.name}`} type="text" maxLength={200} value={values[f.name]}
                aria-describedby={f.hint ? `evidence-${f.name}-hint` : undefined}
                onInput={(e) => setValues({ ...values, [f.name]: e.currentTarget.value })} />
            )}
          </Field>
        ))}
      </form>
      <h3>Documents</h3>
      {documents.length === 0 ? <p class="muted">No documents yet.</p> : (
        <ul class="plain">
          {documents.map((doc) => <li key={doc.id}>{doc.filename} <span class="muted small">{doc.type}, {kib(doc.size)}</span></li>)}
        </ul>
      )}
      {documents.length < MAX_DOCUMENTS && (
        <form class="filters" onSubmit={upload} aria-label="Upload a document">
          <Field id="evidence-document" label="Document (PDF, PNG or JPEG, up to 4 MiB)">
            <input id="evidence-document" name="document" type="file" accept="application/pdf,image/png,image/jpeg,.pdf,.png,.jpg,.jpeg" />
          </Field>
          <button type="submit" class="secondary" disabled={busy}>Upload</button>
        </form>
      )}
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" form="evidence-form" class="secondary" disabled={busy}>Save draft</button>
        <button type="button" disabled={busy} onClick={() => setConfirmKey(idempotencyKey())}>Submit evidence</button>
      </div>
      {confirmKey && (
        <ConfirmDialog title="Submit this evidence?" confirmLabel="Submit evidence" onClose={() => setConfirmKey(undefined)}
          onConfirm={async () => {
            await send(true, confirmKey);
            onDone('Evidence submitted. The provider reviews it and decides the dispute.');
          }}>
          <p>
            The fields above and {documents.length === 1 ? 'one document' : `${documents.length} documents`} go to the provider.
            You cannot change or add evidence afterwards.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
