// Acme Pay's connector: a JSON API with a bearer key, the attempt id as the charge's reference
// (so the status query after a time-out finds it), through the platform's one provider fetch.
import type {
  AuthorizeRequest, AuthorizeResult, Connector, CredentialSource, ProviderNetwork,
} from '../../../services/payments/index.js';
import { providerFetch } from '../../../services/connectors/provider-fetch.js';
import { ACME_PAY_OFFICIAL_HOST } from './facts.js';

type Charge = { id: string; status: 'approved' | 'declined'; decline_code?: string };

const OFFICIAL_BASE = 'https://api.acme-pay.example';

export function createAcmePayConnector(deps: { credentials: CredentialSource; network: ProviderNetwork }): Connector {
  async function call(accountId: string, method: string, path: string, body?: unknown): Promise<Response> {
    const creds = await deps.credentials.get(accountId);
    if (!creds) throw new Error(`Acme Pay account ${accountId} has no credentials`);
    const base = creds.values.api_base_url ?? OFFICIAL_BASE;
    const send = providerFetch(creds.values.api_base_url, { ...deps.network, officialHost: ACME_PAY_OFFICIAL_HOST });
    return send(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${creds.values.api_key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  const resultOf = (c: Charge): AuthorizeResult => (c.status === 'approved'
    ? { outcome: 'success', providerPaymentId: c.id, providerCode: null, providerMessage: null, fee: 0n }
    : { outcome: 'hard_decline', providerPaymentId: c.id, providerCode: c.decline_code ?? null, providerMessage: 'declined', fee: 0n });

  return {
    async authorize(req: AuthorizeRequest) {
      const res = await call(req.account.id, 'POST', '/charges', {
        reference: req.attemptId, amount: Number(req.amount), currency: req.currency, token: req.paymentMethodToken,
      });
      if (!res.ok) return { outcome: 'technical_error', providerPaymentId: null, providerCode: String(res.status), providerMessage: null, fee: 0n };
      return resultOf(await res.json() as Charge);
    },
    async getStatus(req) {
      const res = await call(req.account.id, 'GET', `/charges/${encodeURIComponent(req.attemptId)}`);
      if (res.status === 404) return { found: false };
      return { found: true, ...resultOf(await res.json() as Charge) };
    },
    async refund(req) {
      const res = await call(req.account.id, 'POST', '/refunds', { reference: req.refundId, charge: req.providerPaymentId });
      return res.ok
        ? { outcome: 'success', providerRefundId: ((await res.json()) as { id: string }).id, providerCode: null, providerMessage: null }
        : { outcome: 'technical_error', providerRefundId: null, providerCode: String(res.status), providerMessage: null };
    },
    // Acme Pay pays out nothing yet in these tests: the list is what the scheduled sync asks for.
    async listSettlements(req) {
      const res = await call(req.account.id, 'GET', '/settlements');
      if (!res.ok) throw new Error(`Acme Pay answered HTTP ${res.status}`);
      return [];
    },
    async checkCredentials(account) {
      const res = await call(account.id, 'GET', '/me');
      return res.ok ? { ok: true } : { ok: false, providerCode: String(res.status), message: 'Acme Pay refused the API key' };
    },
  };
}
