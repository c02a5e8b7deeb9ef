import { ASYNC_COMMIT_CTE, type Pool } from '../../services/platform/db.js';
import type { RequestLogView } from '../../services/contract/dashboard-views.js';
import type { Mode } from './keys.js';

/**
 * The request log: recent /v1 calls per project and mode, for the dashboard (never bodies or
 * queries); a failed call keeps its error answer, redacted, for as long as the call is kept.
 */

/** How many calls each project and mode keeps; older ones are pruned as new ones are written. */
export const REQUEST_LOG_KEEP = 1000;

export interface RequestLogEntry {
  requestId: string;
  projectId: string;
  mode: Mode;
  apiKeyPrefix: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  at: Date;
  /** Already redacted by the writer (gateway/edge/request-log-redaction.ts). */
  error: RequestLogView['error'];
}

// One statement per batch: the rows in (unnest of parallel arrays), then the scopes the batch
// touched pruned to their newest REQUEST_LOG_KEEP (the delete does not see this batch's rows, so a
// scope may briefly hold a batch more). The log is for people looking, written after the answer:
// a batch lost in a database crash is harmless, so it commits asynchronously.
const RECORD_SQL = `
WITH ${ASYNC_COMMIT_CTE},
added AS (
  INSERT INTO request_log (request_id, project_id, mode, api_key_prefix, method, path, status, duration_ms, created_at,
    error_code, error_message, error_param)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::timestamptz[],
    $10::text[], $11::text[], $12::text[])
  ON CONFLICT (request_id) DO NOTHING
),
pruned AS (
  DELETE FROM request_log WHERE request_id IN (
  SELECT request_id FROM (
    SELECT request_id, row_number() OVER (PARTITION BY project_id, mode ORDER BY created_at DESC, request_id DESC) AS n
    FROM request_log WHERE (project_id, mode) IN (SELECT * FROM unnest($2::text[], $3::text[]))
  ) ranked WHERE n > ${REQUEST_LOG_KEEP})
)
SELECT setting FROM async_commit`;

export function createRequestLogStore(pool: Pool) {
  return {
    async recordRequests(entries: RequestLogEntry[]): Promise<void> {
      const column = <K extends keyof RequestLogEntry>(k: K) => entries.map((e) => e[k]);
      await pool.query(RECORD_SQL, [
        column('requestId'), column('projectId'), column('mode'), column('apiKeyPrefix'), column('method'),
        column('path'), column('status'), column('durationMs'), column('at'),
        entries.map((e) => e.error?.code ?? null), entries.map((e) => e.error?.message ?? null),
        entries.map((e) => e.error?.param ?? null),
      ]);
    },

    /** The newest calls of a project and mode, newest first. */
    async listRequests(projectId: string, mode: Mode, limit: number): Promise<RequestLogView[]> {
      const { rows } = await pool.query(
        `SELECT * FROM request_log WHERE project_id = $1 AND mode = $2
         ORDER BY created_at DESC, request_id DESC LIMIT $3`,
        [projectId, mode, limit],
      );
      return rows.map(viewOf);
    },

    /** One call of a project and mode by its request id, while the log keeps it. */
    async getRequest(projectId: string, mode: Mode, requestId: string): Promise<RequestLogView | undefined> {
      const { rows } = await pool.query(
        'SELECT * FROM request_log WHERE request_id = $1 AND project_id = $2 AND mode = $3',
        [requestId, projectId, mode],
      );
      return rows[0] && viewOf(rows[0]);
    },
  };
}

function viewOf(r: any): RequestLogView {
  return {
    request_id: r.request_id,
    method: r.method,
    path: r.path,
    status: r.status,
    duration_ms: r.duration_ms,
    api_key_prefix: r.api_key_prefix,
    created_at: new Date(r.created_at).toISOString(),
    error: r.error_code === null ? null : { code: r.error_code, message: r.error_message, param: r.error_param },
  };
}
