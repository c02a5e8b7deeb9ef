import { createRouterTransport } from '@connectrpc/connect';
import { clientsOver, type GatewayClients, type GatewayTransports } from '../../gateway/index.js';
import { createPeerTransport } from '../../services/platform/rpc.js';

/**
 * Clients for a gateway a test builds itself: the parts named by URL are reached for real, every
 * other one over an in-memory transport that serves nothing (a call to it answers Unimplemented),
 * so a test names only the parts it exercises, with the credential they admit (the stack's internalToken).
 */
export function gatewayClients(
  urls: Partial<Record<keyof GatewayTransports, string>> = {}, internalToken = '',
): GatewayClients {
  const nothing = createRouterTransport(() => {});
  const real = (url: string | undefined) => (url === undefined ? nothing : createPeerTransport(url, internalToken));
  return clientsOver({
    payments: real(urls.payments),
    routingRisk: real(urls.routingRisk),
    webhooks: real(urls.webhooks),
    ledger: real(urls.ledger),
    payouts: real(urls.payouts),
  });
}
