import { createClient } from '@connectrpc/connect';
import { LedgerService } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { ProviderPayoutsService } from '../../proto/gen/svc/payments/v1/provider_payouts_pb.js';
import { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { peerTransport, runServicePart } from '../platform/standalone.js';
import { PART, build } from './index.js';

await runServicePart(PART, ['routing-risk', 'ledger', 'payments'], (deps) =>
  build({
    ...deps,
    routing: createClient(RoutingService, peerTransport(deps.config, 'routing-risk', deps.metrics)),
    ledger: createClient(LedgerService, peerTransport(deps.config, 'ledger', deps.metrics)),
    payments: createClient(ProviderPayoutsService, peerTransport(deps.config, 'payments', deps.metrics)),
  }),
);
