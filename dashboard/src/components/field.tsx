import type { ComponentChildren } from 'preact';

// A labelled form control: the label is tied to its input, and a hint is read with it.

export function Field(props: { id: string; label: string; hint?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <small id={`${props.id}-hint`} class="muted">
          {props.hint}
        </small>
      )}
    </div>
  );
}

/** Reads a form's named fields as text. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  new FormData(form).forEach((value, name) => {
    if (typeof value === 'string') out[name] = value.trim();
  });
  return out;
}
