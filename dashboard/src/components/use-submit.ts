import { useState } from 'preact/hooks';
import { formValues } from './field';

// A form's submit: reads its fields, runs the action once at a time, keeps the error to show.

export function useSubmit(action: (values: Record<string, string>, form: HTMLFormElement) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const form = e.currentTarget as HTMLFormElement;
    setBusy(true);
    setError(undefined);
    try {
      await action(formValues(form), form);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, onSubmit, setError };
}
