// Cursor pagination: "Next" follows next_cursor, "Previous" goes back along the cursors seen.

export function Pager(props: { cursors: string[]; nextCursor: string | null; onPage(cursors: string[]): void }) {
  const { cursors, nextCursor, onPage } = props;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary" disabled={cursors.length === 0} onClick={() => onPage(cursors.slice(0, -1))}>
        Previous
      </button>
      <span class="muted">Page {cursors.length + 1}</span>
      <button type="button" class="secondary" disabled={!nextCursor} onClick={() => nextCursor && onPage([...cursors, nextCursor])}>
        Next
      </button>
    </nav>
  );
}
