import type { ComponentChildren } from 'preact';
import { ApiError } from '../api/client';

// A labelled form control: the label is tied to its input, a hint is read with it, and the server's
// refusal of this field (its error's param) is shown beside it.

export function Field(props: { id: string; label: string; hint?: string; error?: string; children: ComponentChildren }) {
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <small id={`${props.id}-hint`} class="muted">
          {props.hint}
        </small>
      )}
      {props.error && (
        <small id={`${props.id}-error`} class="error" role="alert">
          {props.error}
        </small>
      )}
    </div>
  );
}

/**
 * The message of an API error that names one of `fields` (its param, or a path under one: the
 * field `strategy` owns `strategy.weights`), for the Field it belongs beside; else undefined.
 */
export function errorFor(error: unknown, ...fields: string[]): string | undefined {
  if (!(error instanceof ApiError) || !error.param) return undefined;
  const param = error.param;
  return fields.some((f) => param === f || param.startsWith(`${f}.`)) ? error.message : undefined;
}

/** An error no field of the form shows (none named, or a field the form does not have): for the form's own message. */
export function unplacedError(error: unknown, fields: readonly string[]): unknown {
  return errorFor(error, ...fields) === undefined ? error : undefined;
}

/** Reads a form's named fields as text. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  new FormData(form).forEach((value, name) => {
    if (typeof value === 'string') out[name] = value.trim();
  });
  return out;
}
