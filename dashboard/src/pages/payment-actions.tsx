import { useState } from 'preact/hooks';
import { api, idempotencyKey } from '../api/client';
import type { Payment, Refund } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { majorText, money, toMinor } from '../format';

// Capture, cancel and refund, each behind a confirmation that says exactly what will happen.

type Action = 'capture' | 'cancel' | 'refund';

const REFUNDABLE = ['successful', 'captured', 'partially_refunded'];

export function PaymentActions({ payment: p, onDone }: { payment: Payment; onDone(what: string): void }) {
  const [open, setOpenAction] = useState<Action>();
  // One key per opened dialog: retrying the same confirmation repeats the same request.
  const [key, setKey] = useState('');
  const setOpen = (a: Action | undefined) => {
    setKey(idempotencyKey());
    setOpenAction(a);
  };
  const post = <T = unknown>(action: Action, body: object = {}) => api.post<T>(`${path}/${action}`, body, { 'idempotency-key': key });
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const refundable = p.captured_amount - p.refunded_amount;
  const path = `/payments/${encodeURIComponent(p.id)}`;
  const can = {
    capture: p.status === 'authorized',
    cancel: p.status === 'authorized',
    refund: REFUNDABLE.includes(p.status) && refundable > 0,
  };
  if (!can.capture && !can.cancel && !can.refund) return null;

  const openRefund = () => {
    setAmount(majorText(refundable, p.currency));
    setReason('');
    setOpen('refund');
  };
  const refund = async () => {
    const minor = toMinor(amount, p.currency);
    if (minor === undefined || minor < 1 || minor > refundable) {
      throw new Error(`Enter an amount between ${money(1, p.currency)} and ${money(refundable, p.currency)}.`);
    }
    const refund = await post<Refund>('refund', { amount: minor, reason: reason || undefined });
    onDone(refundOutcome(refund, money(minor, p.currency)));
  };

  return (
    <div class="actions">
      {can.capture && <button type="button" onClick={() => setOpen('capture')}>Capture</button>}
      {can.cancel && <button type="button" class="secondary" onClick={() => setOpen('cancel')}>Cancel payment</button>}
      {can.refund && <button type="button" class="secondary" onClick={openRefund}>Refund</button>}
      {open === 'capture' && (
        <ConfirmDialog title="Capture this payment?" confirmLabel={`Capture ${money(p.amount, p.currency)}`} onClose={() => setOpen(undefined)}
          onConfirm={async () => { await post('capture'); onDone('Payment captured.'); }}>
          <p>The customer is charged {money(p.amount, p.currency)}.</p>
        </ConfirmDialog>
      )}
      {open === 'cancel' && (
        <ConfirmDialog title="Cancel this payment?" confirmLabel="Cancel payment" danger onClose={() => setOpen(undefined)}
          onConfirm={async () => { await post('cancel'); onDone('Payment cancelled.'); }}>
          <p>The authorization of {money(p.amount, p.currency)} is released. This cannot be undone.</p>
        </ConfirmDialog>
      )}
      {open === 'refund' && (
        <ConfirmDialog title="Refund this payment?" confirmLabel="Refund" danger onClose={() => setOpen(undefined)} onConfirm={refund}>
          <p>Up to {money(refundable, p.currency)} can be refunded.</p>
          <Field id="refund-amount" label={`Amount (${p.currency.toUpperCase()})`}>
            <input id="refund-amount" inputMode="decimal" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} required />
          </Field>
          <Field id="refund-reason" label="Reason (optional)">
            <input id="refund-reason" value={reason} maxLength={500} onInput={(e) => setReason(e.currentTarget.value)} />
          </Field>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** What the refund's answer says happened, in its own words: succeeded, failed, or still on its way. */
export function refundOutcome(refund: Refund, amount: string): string {
  if (refund.status === 'successful') return `Refund of ${amount} succeeded.`;
  if (refund.status === 'failed') return `Refund of ${amount} failed${refund.failure?.message ? `: ${refund.failure.message}` : '.'}`;
  return `Refund of ${amount} requested: it is ${refund.status.replace(/_/g, ' ')}; its status is under Refunds below.`;
}
