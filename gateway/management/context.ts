import type { FastifyRequest } from 'fastify';
import { DomainError, type Clock } from '../../services/shared/index.js';
import type { GatewayClients } from '../clients.js';
import type { GatewayStore, Mode } from '../store/index.js';
import type { ManageOperationId } from './operations.js';

/** What every management handler works with. */
export interface ManageDeps {
  store: GatewayStore;
  clock: Clock;
  clients: GatewayClients;
}

export type ManageHandler = (request: FastifyRequest<any>) => Promise<unknown>;
/** Each handler file offers the handlers of its operations; together they must cover the table. */
export type ManageHandlers = Partial<Record<ManageOperationId, ManageHandler>>;

/** Who the audit log names: the token is the deployment's, not a person's. */
export const ACTOR = 'operator';

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
  await deps.store.recordAudit(ACTOR, action, deps.clock.now(), subject);
}
