import { useEffect, useState } from 'preact/hooks';

// Path-based routing under /dashboard: the gateway answers index.html for every page path
// (gateway/dashboard/assets.ts), so a page can be bookmarked, reloaded and opened in a new tab.

export const BASE = '/dashboard';

/** The page path inside the dashboard: "/payments/pay_1" for "/dashboard/payments/pay_1". */
export function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path === '' ? '/' : path;
}

export function href(path: string): string {
  return `${BASE}${path}`;
}

const listeners = new Set<() => void>();

export function navigate(path: string, opts: { replace?: boolean } = {}): void {
  const url = href(path);
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

/** The current location, re-rendering on navigation and on the browser's back and forward. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const changed = () => setTick((n) => n + 1);
    listeners.add(changed);
    window.addEventListener('popstate', changed);
    return () => {
      listeners.delete(changed);
      window.removeEventListener('popstate', changed);
    };
  }, []);
  return { path: currentPath(), query: new URLSearchParams(location.search) };
}

/** Matches "/payments/:id" against a path; the parameters, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.replace(/\/$/, '').split('/');
  if (path === '/') got.splice(1);
  if (pattern === '/') want.splice(1);
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return undefined;
  }
  return params;
}

/** Moves the page path and query without adding a history entry (filters, pagination). */
export function replaceQuery(query: URLSearchParams | Record<string, string | undefined>): void {
  const params = new URLSearchParams();
  const entries = query instanceof URLSearchParams ? [...query.entries()] : Object.entries(query);
  for (const [k, v] of entries) if (v) params.append(k, v);
  const text = params.toString();
  history.replaceState(null, '', `${href(currentPath())}${text ? `?${text}` : ''}`);
  listeners.forEach((l) => l());
}
