import { DEFAULT_PAGE_LIMIT, DomainError } from '../../services/contract/index.js';
import { decodeCursor, page } from '../http/cursor.js';
import type { ManageDeps, ManageHandlers } from './context.js';

// What exists on the deployment, for `svc status`, `svc merchant list` and `svc project list`:
//   GET /manage/v1/status                                 the first page of merchants with their projects
//                                                         and, per mode, the active keys (never secrets)
//   GET /manage/v1/merchants[?limit&cursor]               oldest first
//   GET /manage/v1/merchants/:id/projects[?limit&cursor]  oldest first

type PageQuery = { limit: number; cursor?: string };

const after = (q: PageQuery, prefix: string) => (q.cursor === undefined ? undefined : decodeCursor(q.cursor, prefix));

export function overviewHandlers({ store }: ManageDeps): ManageHandlers {
  return {
    async getStatus() {
      const { items, hasMore } = await store.status(DEFAULT_PAGE_LIMIT);
      return { object: 'status', merchants: items, has_more: hasMore };
    },

    async listMerchants(request) {
      const q = request.query as PageQuery;
      const { items, hasMore } = await store.listMerchants(q.limit, after(q, 'mer'));
      return page(items, hasMore);
    },

    async listProjects(request) {
      const { id } = request.params as { id: string };
      const q = request.query as PageQuery;
      const projects = await store.listProjects(id, q.limit, after(q, 'prj'));
      if (!projects) throw new DomainError('resource_not_found', `No merchant ${id}`, { param: 'id' });
      return page(projects.items, projects.hasMore);
    },
  };
}
