import { DomainError } from '../../services/contract/index.js';

// Cursors are opaque to clients: a versioned, base64url-wrapped position (the last id of the
// previous page). Anything that does not decode to an id of the listed resource is refused.

export function encodeCursor(lastId: string): string {
  return Buffer.from(`v1:${lastId}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, idPrefix: string): string {
  const decoded = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^v1:([a-z]+_[0-9a-z]{26})$/.exec(decoded);
  if (!match || !match[1].startsWith(`${idPrefix}_`)) {
    throw new DomainError('invalid_cursor', 'cursor is not one this list returned; start again without it.', {
      param: 'cursor',
    });
  }
  return match[1];
}

/** The contract's list envelope from a page of items. */
export function page<T extends { id: string }>(items: T[], hasMore: boolean) {
  return {
    data: items,
    has_more: hasMore,
    next_cursor: hasMore && items.length > 0 ? encodeCursor(items[items.length - 1].id) : null,
  };
}
