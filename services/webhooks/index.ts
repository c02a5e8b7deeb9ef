// webhooks: stores every event and delivers it, signed, to merchants' endpoints (WebhooksService).
// Owns schema webhooks. Built in the foundation as a running part with health and its schema; its
// consumer, dispatcher and RPCs arrive with the webhooks issue.
import { assemblePart, type PartInfo, type ServiceDeps, type ServicePart } from '../shared/index.js';

export const PART: PartInfo = { name: 'webhooks', schema: 'webhooks', dir: 'services/webhooks' };

export function build(deps: ServiceDeps): ServicePart {
  return assemblePart(deps, { name: PART.name, services: [], routes: () => undefined });
}
