// The adapter that makes @mollie/api-client send through the account's provider fetch
// (mollie/sdk-transport.ts) held to its promise, so that an SDK upgrade which stops calling it
// fails here loudly: every kind of Mollie call, on an account whose api_base_url is the local
// stand-in, is seen and refused by the provider fetch's address policy (its refusal is logged
// with the stand-in's host) and reaches nothing, while the same account with the operator's
// loopback opt-in does reach the stand-in.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMollieConnector } from '../services/connectors/mollie/connector.js';
import type { Connector, CredentialSource } from '../services/connectors/index.js';
import { attemptAt, refundOf } from './helpers/connector-requests.js';
import { startMollieStandIn, type MollieStandIn } from './helpers/mollie-stand-in.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';

const KEY = 'test_transportKeyAAAAAAAAAAAAAAAAAA';
const ACCOUNT = { providerCode: 'mollie', id: 'pac_mollie_transport', feeFixed: 10n, feeBps: 120, latencyMs: 0 };

describe('every Mollie SDK request goes through the account\'s provider fetch', () => {
  let mollie: MollieStandIn;
  let listed: Connector;
  let unlisted: Connector;
  const refusals: { host: string; reason: string }[] = [];

  before(async () => {
    mollie = await startMollieStandIn({ apiKeys: [KEY] });
    const credentials: CredentialSource = {
      get: async () => ({ mode: 'test', values: { api_key: KEY, webhook_base_url: 'https://pay.example.com', api_base_url: mollie.baseUrl } }),
    };
    const logger = { warn: (fields: object) => { refusals.push(fields as { host: string; reason: string }); } };
    listed = createMollieConnector({ credentials, network: { allowlist: [STAND_IN_ORIGINS], logger } });
    unlisted = createMollieConnector({ credentials, network: { allowlist: [], logger } });
  });
  after(() => mollie?.close());

  const ideal = () => attemptAt(ACCOUNT, 'ideal', { methodType: 'local', returnUrl: 'https://shop.example/done' });
  const signal = () => AbortSignal.timeout(5_000);
  /** Each kind of call the connector makes, on `connector`; what it answers does not matter here. */
  const everyCall = (connector: Connector) => {
    const req = ideal();
    return [
      () => connector.authorize(req),
      () => connector.getStatus({ ...req, signal: signal() }),
      () => connector.refund(refundOf(req, 'tr_standin0000000001', 500n)),
      () => connector.readNotification!({
        account: ACCOUNT, rawBody: Buffer.from('id=tr_standin0000000001'), headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      () => connector.checkCredentials!(ACCOUNT),
      () => connector.listSettlements!({ account: ACCOUNT, since: new Date(0), signal: signal() }),
    ];
  };

  test('with the operator\'s loopback opt-in, a call reaches the stand-in', async () => {
    const seen = mollie.requests.length;
    const r = await listed.authorize(ideal());
    assert.equal(r.outcome, 'requires_action');
    assert.equal(mollie.requests.length, seen + 1);
  });

  test('without it, each kind of call is refused by the provider fetch\'s address policy and nothing reaches the stand-in', async () => {
    const host = new URL(mollie.baseUrl).host;
    const seen = mollie.requests.length;
    for (const call of everyCall(unlisted)) {
      const before = refusals.length;
      await call().catch(() => undefined);
      const mine = refusals.slice(before);
      assert.ok(mine.length > 0, `a request of ${call.toString()} was not seen by the provider fetch`);
      assert.ok(mine.every((r) => r.host === host), JSON.stringify(mine));
    }
    assert.equal(mollie.requests.length, seen, 'the SDK sent around the provider fetch');
  });
});
