import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../services/platform/clock.js';
import { DomainError } from '../../services/contract/index.js';
import type { GatewayClients } from '../clients.js';
import type { GatewayStore, Mode } from '../store/index.js';
import type { ManageOperationId } from './operations.js';

/** What every management handler works with. */
export interface ManageDeps {
  store: GatewayStore;
  clock: Clock;
  clients: GatewayClients;
  /** Who the audit log names: the operator unless the dashboard calls as one of its users. */
  actor?: string;
  /** Issues an owner sign-in link (the dashboard owns links and their tokens); the dashboard's calls make none. */
  issueOwnerLink?: (merchantId: string, actor: string) => Promise<{ url: string; merchant_id: string; expires_at: string } | undefined>;
}

/** What a handler reads of a request, so the dashboard can call the same handlers for its session's project. */
export type ManageRequest = Pick<FastifyRequest, 'params' | 'query' | 'body'>;
export type ManageHandler = (request: ManageRequest) => Promise<unknown>;
/** Each handler file offers the handlers of its operations; together they must cover the table. */
export type ManageHandlers = Partial<Record<ManageOperationId, ManageHandler>>;

/** Who the audit log names for the operator token: the deployment's, not a person's. */
export const ACTOR = 'operator';

export const actorOf = (deps: ManageDeps): string => deps.actor ?? ACTOR;

export const projectNotFound = (projectId: string) =>
  new DomainError('resource_not_found', `No project ${projectId}`, { param: 'id' });

/** The scope a part is called with for a project and mode; 404 on the project when it does not exist. */
export async function projectScope(store: GatewayStore, projectId: string, mode: Mode) {
  const merchantId = await store.projectMerchant(projectId);
  if (!merchantId) throw projectNotFound(projectId);
  return { merchantId, projectId, mode };
}

/**
 * Records a change kept by another part, after that part has answered: the change and its record
 * live in two parts, and an audit row for a change that was refused would be worse than none for
 * one whose reply was lost. (Changes kept by the gateway's own store are audited by the store.)
 */
export async function audit(
  deps: ManageDeps, action: string, subject: Parameters<GatewayStore['recordAudit']>[3],
): Promise<void> {
  await deps.store.recordAudit(actorOf(deps), action, deps.clock.now(), subject);
}
