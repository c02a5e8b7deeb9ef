import type { Pool } from '../../services/platform/db.js';
import type { Mode } from './keys.js';
import { verificationStatus, type VerificationStatus } from '../../services/contract/verification-status.js';

/**
 * What exists, for the operator: merchants, their projects, and which API keys each project has per
 * mode. Pages are oldest first by id (ids sort by creation time), each fetched one row longer to
 * know whether there is more. Creating them is in keys.ts, where each change is audited.
 */

export interface MerchantView {
  id: string;
  object: 'merchant';
  name: string;
  verification_status: VerificationStatus;
  verified_at: string | null;
  created_at: string;
}

export interface ProjectView {
  id: string;
  object: 'project';
  merchant_id: string;
  name: string;
  created_at: string;
}

/** A project's active keys of one mode (never their secrets); `available` says whether the mode may have keys. */
export interface ModeView {
  available: boolean;
  keys: Array<{ id: string; name: string; prefix: string }>;
}

export type ProjectStatus = ProjectView & { modes: Record<Mode, ModeView> };
export type MerchantStatus = MerchantView & { projects: ProjectStatus[] };

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

const iso = (t: Date | string | null) => (t === null ? null : new Date(t).toISOString());

function merchantView(r: Record<string, any>): MerchantView {
  return {
    id: r.id, object: 'merchant', name: r.name, verification_status: verificationStatus(r.verification_status, r.submission_status),
    verified_at: iso(r.verified_at), created_at: iso(r.created_at)!,
  };
}

function projectView(r: Record<string, any>): ProjectView {
  return { id: r.id, object: 'project', merchant_id: r.merchant_id, name: r.name, created_at: iso(r.created_at)! };
}

function pageOf<T>(rows: Record<string, any>[], limit: number, view: (r: Record<string, any>) => T): Page<T> {
  return { items: rows.slice(0, limit).map(view), hasMore: rows.length > limit };
}

function projectStatus(p: Record<string, any>, merchant: MerchantView, keys: Record<string, any>[]): ProjectStatus {
  const modeOf = (mode: Mode, available: boolean): ModeView => ({
    available,
    keys: keys.filter((k) => k.project_id === p.id && k.mode === mode).map((k) => ({ id: k.id, name: k.name, prefix: k.prefix })),
  });
  // Live keys exist only once the merchant's business verification is approved (keys.ts).
  return { ...projectView(p), modes: { test: modeOf('test', true), live: modeOf('live', merchant.verification_status === 'approved') } };
}

export function createOverviewStore(pool: Pool) {
  async function merchantPage(limit: number, startingAfter?: string): Promise<Page<MerchantView>> {
    const { rows } = await pool.query(
      `SELECT m.*, v.status AS submission_status FROM merchants m
       LEFT JOIN LATERAL (SELECT status FROM verification_submissions s WHERE s.merchant_id = m.id
                          ORDER BY s.created_at DESC, s.id DESC LIMIT 1) v ON true
       WHERE $1::text IS NULL OR m.id > $1 ORDER BY m.id LIMIT $2`,
      [startingAfter ?? null, limit + 1],
    );
    return pageOf(rows, limit, merchantView);
  }

  return {
    listMerchants: merchantPage,

    /** A merchant's projects, or undefined for an unknown merchant. */
    async listProjects(merchantId: string, limit: number, startingAfter?: string): Promise<Page<ProjectView> | undefined> {
      const merchant = await pool.query('SELECT 1 FROM merchants WHERE id = $1', [merchantId]);
      if (merchant.rowCount === 0) return undefined;
      const { rows } = await pool.query(
        `SELECT * FROM projects WHERE merchant_id = $1 AND ($2::text IS NULL OR id > $2) ORDER BY id LIMIT $3`,
        [merchantId, startingAfter ?? null, limit + 1],
      );
      return pageOf(rows, limit, projectView);
    },

    /** The first `limit` merchants with all their projects and active keys per mode. */
    async status(limit: number): Promise<Page<MerchantStatus>> {
      const merchants = await merchantPage(limit);
      const ids = merchants.items.map((m) => m.id);
      const projects = await pool.query('SELECT * FROM projects WHERE merchant_id = ANY($1) ORDER BY id', [ids]);
      const keys = await pool.query(
        `SELECT id, project_id, mode, name, prefix FROM api_keys
         WHERE merchant_id = ANY($1) AND revoked_at IS NULL ORDER BY created_at, id`,
        [ids],
      );
      const items = merchants.items.map((merchant) => ({
        ...merchant,
        projects: projects.rows.filter((p) => p.merchant_id === merchant.id).map((p) => projectStatus(p, merchant, keys.rows)),
      }));
      return { items, hasMore: merchants.hasMore };
    },
  };
}

export type OverviewStore = ReturnType<typeof createOverviewStore>;
