import { createClient } from '@connectrpc/connect';
import { LedgerService } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { ProviderAccountsService } from '../../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { peerTransport, runServicePart } from '../platform/standalone.js';
import { PROVIDERS } from '../connectors/providers.js';
import { PART, build, loadProviders } from './index.js';

// Routing-risk routes payments and lists the connected provider accounts; the ledger takes the
// Stripe settlements the scheduled sync reads (jobs/settlement-sync.ts).
const providers = await loadProviders(PROVIDERS);
await runServicePart(PART, ['routing-risk', 'ledger'], (deps) => {
  const routingRisk = peerTransport(deps.config, 'routing-risk', deps.metrics);
  return build({
    ...deps,
    routing: createClient(RoutingService, routingRisk),
    providerAccounts: createClient(ProviderAccountsService, routingRisk),
    ledger: createClient(LedgerService, peerTransport(deps.config, 'ledger', deps.metrics)),
    providers,
  });
});
