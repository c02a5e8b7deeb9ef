// payouts: payouts to merchants' beneficiaries (PayoutsService). Owns schema payouts.
// Built in the foundation as a running part with health and its schema; its RPCs arrive with
// the payouts issue.
import { assemblePart, type PartInfo, type ServiceDeps, type ServicePart } from '../shared/index.js';

export const PART: PartInfo = { name: 'payouts', schema: 'payouts', dir: 'services/payouts' };

export function build(deps: ServiceDeps): ServicePart {
  return assemblePart(deps, { name: PART.name, services: [], routes: () => undefined });
}
