import { formValues } from './field';
import { replaceQuery, useLocation } from '../router';

// A list page's filters and cursor pages, kept in the address so a filtered list can be reloaded
// and shared: `filters` as typed, `apply` for the filter form, `page` for the pager.

export function useListQuery<F extends string>(names: readonly F[]) {
  const { query } = useLocation();
  const filters = Object.fromEntries(names.map((f) => [f, query.get(f) ?? ''])) as Record<F, string>;
  const cursors = query.getAll('page');
  const apply = (e: Event) => {
    e.preventDefault();
    replaceQuery(formValues(e.currentTarget as HTMLFormElement));
  };
  const page = (next: string[]) => {
    const params = new URLSearchParams(query);
    params.delete('page');
    next.forEach((c) => params.append('page', c));
    replaceQuery(params);
  };
  return { filters, cursors, key: query.toString(), apply, page };
}

/** A date input's day as the start or end of that day in the browser's zone, for `from` and `to`. */
export const dayStart = (d: string) => (d ? new Date(`${d}T00:00:00`).toISOString() : undefined);
export const dayEnd = (d: string) => (d ? new Date(`${d}T23:59:59.999`).toISOString() : undefined);
