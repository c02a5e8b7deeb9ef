import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorMessage } from './messages';

// A modal confirmation for anything that moves money or cannot be undone. The native <dialog>
// traps focus, closes on Escape and returns focus to the button that opened it.

export interface ConfirmProps {
  title: string;
  confirmLabel: string;
  danger?: boolean;
  children?: ComponentChildren;
  /** Runs the action; a thrown error is shown in the dialog, which stays open. */
  onConfirm(): Promise<void>;
  onClose(): void;
}

export function ConfirmDialog(props: ConfirmProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);

  const confirm = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onClose={props.onClose} onCancel={props.onClose}>
      <form method="dialog" onSubmit={confirm}>
        <h2 id="confirm-title">{props.title}</h2>
        {props.children}
        <ErrorMessage error={error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={props.onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" class={props.danger ? 'danger' : undefined} disabled={busy}>
            {busy ? 'Working…' : props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
