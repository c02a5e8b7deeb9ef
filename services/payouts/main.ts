import { createClient } from '@connectrpc/connect';
import { LedgerService } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { createPeerTransport, runServicePart } from '../shared/index.js';
import { PART, build } from './index.js';

await runServicePart(PART, ['routing-risk', 'ledger'], (deps) =>
  build({
    ...deps,
    routing: createClient(RoutingService, createPeerTransport(deps.config.peers['routing-risk']!)),
    ledger: createClient(LedgerService, createPeerTransport(deps.config.peers.ledger!)),
  }),
);
