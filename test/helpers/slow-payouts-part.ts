// The payouts part exactly as services/payouts/main.ts runs it, except that the demo providers
// answer each payout DEMO_PAYOUT_LATENCY_MS late. A chaos test can then kill payouts while payouts
// are at their provider: claimed `pending`, the call sent, no answer recorded yet. With
// DEMO_PAYOUT_SEND_LOG each call is also appended there (payout id, this process's clock, FAKETIME),
// so a test counts the sends of every replica.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@connectrpc/connect';
import { LedgerService } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { ProviderPayoutsService } from '../../proto/gen/svc/payments/v1/provider_payouts_pb.js';
import { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { DemoPayoutConnector, PART, build, type PayoutConnector } from '../../services/payouts/index.js';
import { DEMO_PROVIDER_CODES } from '../../services/payouts/providers.js';
import { peerTransport, runServicePart } from '../../services/platform/standalone.js';

const latencyMs = Number(process.env.DEMO_PAYOUT_LATENCY_MS ?? 0);
const sendLog = process.env.DEMO_PAYOUT_SEND_LOG;
const demo = new DemoPayoutConnector();
const slow: PayoutConnector = {
  async send(req) {
    if (sendLog) appendFileSync(sendLog, `${JSON.stringify({ payoutId: req.payoutId, at: Date.now(), faketime: process.env.FAKETIME ?? '' })}\n`);
    // The dispatcher's deadline aborts the wait, as it would a real provider's call.
    await sleep(latencyMs, undefined, { signal: req.signal });
    return demo.send(req);
  },
};

await runServicePart(PART, ['routing-risk', 'ledger', 'payments'], (deps) =>
  build({
    ...deps,
    routing: createClient(RoutingService, peerTransport(deps.config, 'routing-risk')),
    ledger: createClient(LedgerService, peerTransport(deps.config, 'ledger')),
    payments: createClient(ProviderPayoutsService, peerTransport(deps.config, 'payments')),
    connectors: Object.fromEntries([...DEMO_PROVIDER_CODES].map((code) => [code, slow])),
  }),
);
