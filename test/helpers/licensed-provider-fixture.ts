// The test stack that tests of licensed providers share (their connectors behind a stand-in
// provider or a recording connector, their accounts, live routing to them): a live merchant with
// an account at the provider, and a payment by that merchant's live key.
import assert from 'node:assert/strict';
import { request, startTestStack, type TestStack } from './stack.js';

export interface LicensedProviderStack extends TestStack {
  /**
   * A live merchant whose project has an account `pac_<provider>_<project>` at the provider, at the
   * given pricing, written straight into routing: for tests whose connector is built with its
   * credentials, so they need not go through the sealed provider-accounts API.
   */
  liveMerchantAt(providerId: string, fees: Fees): Promise<LiveMerchant>;
  /** The live account `pac_<provider>_<project>` of the merchant's project at the provider, written as `liveMerchantAt` writes it; its id. */
  addLiveAccount(m: { merchantId: string; projectId: string }, providerId: string, fees: Fees): Promise<string>;
  /** POST /v1/payments with the key: 25.00 EUR and the stack's `paymentDefaults` unless `body` says otherwise. */
  pay(key: string, body?: Record<string, unknown>): ReturnType<typeof request>;
  /** Connects a live account through the management API (sealed credentials, as a merchant would); its id. */
  connectLive(projectId: string, account: Record<string, unknown>): Promise<string>;
  /**
   * Stores a card holding one provider token per entry (the first through POST /v1/payment-methods,
   * the rest as added credentials) and pays with it by the key.
   */
  payStored(key: string, tokens: StoredToken[], body?: Record<string, unknown>): ReturnType<typeof request>;
}

export type StoredToken = { token: string; provider_code: string };

export type LiveMerchant = Awaited<ReturnType<TestStack['newMerchantKey']>> & { accountId: string };

type Fees = { fixed: number; bps: number };

export async function startLicensedProviderStack(
  opts: Parameters<typeof startTestStack>[0] & { paymentDefaults?: Record<string, unknown> } = {},
): Promise<LicensedProviderStack> {
  const { paymentDefaults, ...stackOpts } = opts;
  const stack = await startTestStack(stackOpts);
  const addLiveAccount: LicensedProviderStack['addLiveAccount'] = async (m, providerId, fees) => {
    const accountId = `pac_${providerId.replace(/^prv_/, '')}_${m.projectId}`;
    await stack.query(
      `INSERT INTO routing_risk.provider_accounts (id, provider_id, merchant_id, project_id, mode, fee_fixed, fee_bps)
       VALUES ($1, $2, $3, $4, 'live', $5, $6)`,
      [accountId, providerId, m.merchantId, m.projectId, fees.fixed, fees.bps],
    );
    return accountId;
  };
  const pay: LicensedProviderStack['pay'] = (key, body = {}) => request(stack.baseUrl, 'POST', '/v1/payments', {
    key, body: { amount: 2500, currency: 'EUR', ...paymentDefaults, ...body },
  });
  return {
    ...stack,
    async liveMerchantAt(providerId, fees) {
      const m = await stack.newMerchantKey('live');
      return { ...m, accountId: await addLiveAccount(m, providerId, fees) };
    },
    addLiveAccount,
    pay,
    async connectLive(projectId, account) {
      const res = await stack.manage('POST', `/projects/${projectId}/provider-accounts`, { mode: 'live', ...account });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.id as string;
    },
    async payStored(key, [first, ...more], body = {}) {
      const pm = await request(stack.baseUrl, 'POST', '/v1/payment-methods', {
        key, body: { type: 'card', provider_token: first!.token, provider_code: first!.provider_code },
      });
      assert.equal(pm.status, 201, JSON.stringify(pm.body));
      for (const t of more) {
        const added = await request(stack.baseUrl, 'POST', `/v1/payment-methods/${pm.body.id}/credentials`, {
          key, body: { type: 'provider_token', ...t },
        });
        assert.equal(added.status, 201, JSON.stringify(added.body));
      }
      return pay(key, { payment_method: { type: 'card', id: pm.body.id }, ...body });
    },
  };
}
