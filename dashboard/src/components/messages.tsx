import { ApiError } from '../api/client';

// What went wrong, said where the person looks: an alert region read out by screen readers.

export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as Error;
  const detail = e instanceof ApiError && e.requestId ? ` (request ${e.requestId})` : '';
  return (
    <p class="error" role="alert">
      {e.message}
      {detail}
    </p>
  );
}

export function Notice({ children }: { children: preact.ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}
