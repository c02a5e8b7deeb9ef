import type { ComponentChildren, InputHTMLAttributes, VNode } from 'preact';
import { label } from '../format';
import { Field } from './field';
import { ErrorMessage, Loading } from './messages';
import { Pager } from './pager';
import type { Loaded } from './use-load';
import { TableWrap } from './table-wrap';

// The parts every list page has: its filter form, and the list itself (error, loading, the empty
// text or the table, the cursor pager).

/**
 * A list's filter form. Its fields are uncontrolled, starting from the filters in use, and the form
 * is keyed by them: whenever they move (an Apply, a page, back and forward) it is mounted afresh, so
 * it never shows values other than those the list is filtered by, even while the list loads.
 * The submit handler reads the fields with FormData.
 */
export function ListFilters(props: {
  label: string;
  /** What the list is filtered by now, as text (the address's query string). */
  current: string;
  onSubmit(e: Event): void;
  submit?: { text: string; class?: string };
  children: ComponentChildren;
}) {
  const submit = props.submit ?? { text: 'Apply' };
  return (
    <form key={props.current} class="filters" onSubmit={props.onSubmit} role="search" aria-label={props.label}>
      {props.children}
      <button type="submit" class={submit.class}>{submit.text}</button>
    </form>
  );
}

interface InputProps {
  type?: 'date' | 'search';
  placeholder?: string;
  size?: number;
  maxLength?: number;
  pattern?: string;
}

/** A text filter named as its query parameter (its id too, unless one is given). */
export function TextFilter(props: { name: string; label: string; value: string; id?: string } & InputProps) {
  const { name, label: text, value, id = name, ...input } = props;
  // Preact's input types are a union by `type` that a spread of an optional type cannot narrow.
  const attrs = { id, name, defaultValue: value, ...input } as InputHTMLAttributes<HTMLInputElement>;
  return (
    <Field id={id} label={text}>
      <input {...attrs} />
    </Field>
  );
}

/**
 * A choice among `options`, or "Any" (the empty value). Uncontrolled through each option's
 * `selected`, which also picks the current value out of options that arrive after the form.
 */
export function SelectFilter(props: { name: string; label: string; value: string; options: readonly string[]; text?(option: string): string }) {
  const text = props.text ?? label;
  return (
    <Field id={props.name} label={props.label}>
      <select id={props.name} name={props.name}>
        <option value="" selected={props.value === ''}>Any</option>
        {props.options.map((o) => (
          <option key={o} value={o} selected={o === props.value}>{text(o)}</option>
        ))}
      </select>
    </Field>
  );
}

/** The `from` and `to` days of a list's date range. */
export function DateRangeFields(props: { from: string; to: string }) {
  return (
    <>
      <TextFilter name="from" label="From" type="date" value={props.from} />
      <TextFilter name="to" label="To" type="date" value={props.to} />
    </>
  );
}

/**
 * A loaded list: its error, "Loading…" until the first answer, then the empty text or the table
 * (a focusable region named `table`, for scrolling it by keyboard), and the pager when the API pages.
 */
export function ListView<T>(props: {
  list: Loaded<{ data: T[]; has_more?: boolean; next_cursor?: string | null }>;
  what: string;
  table: string;
  columns: string[];
  row(item: T): VNode;
  /** Shown instead of an empty table. */
  empty?: string;
  pages?: { cursors: string[]; onPage(cursors: string[]): void };
}) {
  const { list, pages } = props;
  const data = list.data;
  return (
    <>
      <ErrorMessage error={list.error} />
      {list.loading && !data && <Loading what={props.what} />}
      {data && props.empty !== undefined && data.data.length === 0 ? (
        <p class="muted">{props.empty}</p>
      ) : (
        data && (
          <TableWrap label={props.table}>
            <table>
              <thead>
                <tr>{props.columns.map((c) => <th key={c} scope="col">{c}</th>)}</tr>
              </thead>
              <tbody>{data.data.map(props.row)}</tbody>
            </table>
          </TableWrap>
        )
      )}
      {data && pages && <Pager cursors={pages.cursors} nextCursor={data.has_more ? (data.next_cursor ?? null) : null} onPage={pages.onPage} />}
    </>
  );
}

/**
 * The operator console's pages of a newest-first list: "Older" moves `before` to the page's last
 * row (`next` is null on the last page), "Newest" goes back to the start.
 */
export function OlderNewest(props: { before?: string; next?: string | null; onMove(before: string | undefined): void }) {
  const { before, next, onMove } = props;
  return (
    <div class="actions">
      {before && <button type="button" class="secondary" onClick={() => onMove(undefined)}>Newest</button>}
      {next && <button type="button" class="secondary" onClick={() => onMove(next)}>Older</button>}
    </div>
  );
}
