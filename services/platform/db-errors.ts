// Which failures of a Postgres call mean "the database cannot serve now" rather than a bug: a
// part answers those as 503 service_unavailable with Retry-After (rpc.ts, gateway/http/errors.ts),
// as the contract's transient errors are, never as 500 internal_error.

// SQLSTATE classes: 08 connection exception, 53 insufficient resources (53100 disk_full, 53200
// out_of_memory, 53300 too_many_connections), 58 system error (an I/O error under a full disk);
// 57P01-03 the server shutting down or starting up; 57014 a statement cancelled at
// statement_timeout; 25P03 a transaction ended at idle_in_transaction_session_timeout.
const UNAVAILABLE_SQLSTATE = /^(08|53|58)|^57P0[1-3]$|^57014$|^25P03$/;

// The socket's own failures, as node reports them.
const SOCKET_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
]);

// node-postgres's own words for a connection it gave up on or lost (it sets no code on these).
const LOST = /^(Query read timeout|timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Client was closed|Connection terminated unexpectedly)/;

function fields(err: unknown): { code?: unknown; message?: unknown } {
  return typeof err === 'object' && err !== null ? (err as { code?: unknown; message?: unknown }) : {};
}

/** Whether the connection itself is dead or stuck: nothing more may be sent on it. */
export function lostConnection(err: unknown): boolean {
  const { code, message } = fields(err);
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || /^08/.test(code))) return true;
  return typeof message === 'string' && LOST.test(message);
}

/** Whether Postgres is down, full, unreachable or too slow: worth a retry, a 503 for the client. */
export function databaseUnavailable(err: unknown): boolean {
  const { code } = fields(err);
  if (typeof code === 'string' && UNAVAILABLE_SQLSTATE.test(code)) return true;
  if (lostConnection(err)) return true;
  // An AggregateError (a host with several addresses, all refused) carries the socket failures.
  const errors = (err as { errors?: unknown[] } | undefined)?.errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(lostConnection);
}

/** What the client is told when the database cannot serve. */
export const DATABASE_UNAVAILABLE = 'The service is temporarily unavailable; retry the request.';
