import { API_BASE, withQuery } from '../api/client';

// Downloads what a list's filters select as CSV: a plain link to the server's export
// (gateway/dashboard/export-routes.ts), which escapes the cells and follows the pages itself.

export function ExportLink(props: { path: string; query: Record<string, string | undefined>; what: string }) {
  return (
    <a class="button-link" href={`${API_BASE}${withQuery(props.path, props.query)}`} download>
      Export {props.what} as CSV
    </a>
  );
}
