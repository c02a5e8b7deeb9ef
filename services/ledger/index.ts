// ledger: transactions, balances and settlements (LedgerService). Owns schema ledger.
// Built in the foundation as a running part with health and its schema; its RPCs and its event
// consumer arrive with the ledger issue.
import { assemblePart, type PartInfo, type ServiceDeps, type ServicePart } from '../shared/index.js';

export const PART: PartInfo = { name: 'ledger', schema: 'ledger', dir: 'services/ledger' };

export function build(deps: ServiceDeps): ServicePart {
  return assemblePart(deps, { name: PART.name, services: [], routes: () => undefined });
}
