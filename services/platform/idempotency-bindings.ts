import { createHash } from 'node:crypto';
import { toJson, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import type { Clock } from './clock.js';
import { prepared, type Queryable } from './db.js';
import { row, type RowWrite, type TableShape } from './row-writes.js';
import { serviceError } from '../contract/errors.js';
import { every } from './every.js';
import type { Logger } from './logger.js';

/**
 * An Idempotency-Key bound to what its request moved, in the part that moves the money.
 *
 * The gateway's record of a key is a cache of responses: it can expire, lose its lock to a dead
 * gateway, or be freed by a 5xx. None of that may move money twice, so the key also travels to the
 * part that creates the payment, refund, capture, cancel or payout, and is bound there, under the
 * primary key (merchant, project, mode, key), in the very statement or transaction that makes the
 * resource durable, before any provider is called (Brandur Leach's "atomic phase"). Of two requests
 * racing with one key, the second's commit fails on that key and it answers the first's resource.
 * Each money-moving part has an `idempotency_bindings` table in its own schema.
 */

export interface BindingScope {
  merchantId: string;
  projectId: string;
  mode: string;
}

export interface Binding {
  key: string;
  /** The request's proto type: a key used for a capture is not a refund's key. */
  operation: string;
  /** The request as sent, so a reuse with another body is refused. */
  fingerprint: string;
  resourceId: string;
}

/** JSON with object keys sorted at every depth: the same data always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** The binding a keyed request asks for: its operation and a fingerprint of all it sent but scope and key. */
export function bindingOf<D extends DescMessage>(
  schema: D, request: MessageShape<D> & { idempotencyKey?: string }, resourceId = '',
): Binding | undefined {
  if (!request.idempotencyKey) return undefined;
  const json = toJson(schema, request) as Record<string, unknown>;
  delete json.scope;
  delete json.idempotencyKey;
  const fingerprint = createHash('sha256').update(canonicalJson(json)).digest('hex');
  return { key: request.idempotencyKey, operation: schema.typeName, fingerprint, resourceId };
}

const BINDINGS: TableShape = {
  table: 'idempotency_bindings',
  columns: ['merchant_id', 'project_id', 'mode', 'idempotency_key', 'operation', 'fingerprint', 'resource_id']
    .map((name) => ({ name, type: 'text' }))
    .concat([{ name: 'created_at', type: 'timestamptz' }, { name: 'expires_at', type: 'timestamptz' }]),
  key: ['merchant_id', 'project_id', 'mode', 'idempotency_key'],
  write: 'insert',
};

/** The row that binds a key; it fails its statement (unique violation) when the key is bound. */
export function bindingRow(scope: BindingScope, b: Binding, at: Date, expiresAt: Date): RowWrite {
  return row(BINDINGS, [scope.merchantId, scope.projectId, scope.mode, b.key, b.operation, b.fingerprint, b.resourceId, at, expiresAt]);
}

/** Whether a write failed because its key was bound meanwhile (the racing request won). */
export function isBindingConflict(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && e.constraint === 'idempotency_bindings_pkey';
}

/**
 * The id of the resource the key is bound to for this same request, or undefined when the key is
 * free (never used, or its binding expired with the gateway's record: then it is forgotten here).
 * The same key with another operation or body is refused, as the gateway would.
 */
export async function boundResource(db: Queryable, scope: BindingScope, b: Binding, now: Date): Promise<string | undefined> {
  const { rows } = await db.query(prepared(
    `SELECT operation, fingerprint, resource_id, expires_at FROM idempotency_bindings
     WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND idempotency_key = $4`,
    [scope.merchantId, scope.projectId, scope.mode, b.key],
  ));
  const row = rows[0];
  if (!row) return undefined;
  if (row.expires_at <= now) {
    await db.query(
      `DELETE FROM idempotency_bindings
       WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND idempotency_key = $4 AND expires_at <= $5`,
      [scope.merchantId, scope.projectId, scope.mode, b.key, now],
    );
    return undefined;
  }
  if (row.operation !== b.operation || row.fingerprint !== b.fingerprint) {
    throw serviceError(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request; use a new key for a new request.',
    );
  }
  return row.resource_id;
}

const SWEEP_INTERVAL_MS = 60_000;

/** Forgets expired bindings, a batch at a time, off the request path. */
async function deleteExpiredBindings(db: Queryable, now: Date, limit = 1000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_bindings WHERE ctid IN (
       SELECT ctid FROM idempotency_bindings WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [now, limit],
  );
  return rowCount ?? 0;
}

/** The job every money-moving part runs: expired bindings go once a minute (a lookup also drops its own). */
export function bindingSweep(db: Queryable, clock: Clock, logger: Logger) {
  return every(SWEEP_INTERVAL_MS, 'idempotency bindings sweep', logger, () => deleteExpiredBindings(db, clock.now()));
}

/**
 * Answered to a retry whose resource is still being decided by the request that created it (or by
 * reconciliation after that request died): retry shortly; never a second execution.
 */
export function stillInProgress(resource: string): Error {
  return serviceError(
    'idempotency_in_progress',
    `The ${resource} created with this Idempotency-Key is still being processed; retry after Retry-After seconds.`,
    { status: 503 },
  );
}
