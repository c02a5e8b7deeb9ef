import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  ProviderPayoutsService, type PayoutAnswerSchema,
} from '../../../proto/gen/svc/payments/v1/provider_payouts_pb.js';
import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { withDeadline } from '../../platform/deadline.js';
import type { Logger } from '../../platform/logger.js';
import { requireScope } from '../../platform/request-guards.js';
import { invalidField, serviceError } from '../../contract/index.js';
import type { Connector, ConnectorRegistry, PayoutResult } from '../../connectors/index.js';
import type { CredentialStore } from '../provider-credentials/index.js';

// ProviderPayoutsService: the payouts part's way to a licensed provider. Payments holds the
// credentials, so it checks the account is the caller's scope's and hands the call to the account's
// connector under the same deadline as every provider call.

export interface ProviderPayoutDeps {
  credentials: Pick<CredentialStore, 'belongsTo'>;
  connectors: ConnectorRegistry;
  logger: Logger;
  providerTimeoutMs: number;
}

type Answer = MessageInitShape<typeof PayoutAnswerSchema>;

/** A connector's payout result as the payouts part reads it (a send, a status query, a notification). */
export const answerOf = (r: PayoutResult): Answer => ({
  outcome: r.outcome,
  providerPayoutId: r.providerPayoutId ?? undefined,
  providerCode: r.providerCode ?? undefined,
  providerMessage: r.providerMessage ?? undefined,
  failure: r.failure,
});

const NOT_SUPPORTED: Answer = {
  outcome: 'provider_unavailable',
  providerMessage: 'No payout connector for this provider is installed in this deployment',
  failure: { code: 'payouts_not_supported', category: 'technical', message: 'This provider cannot send payouts here; nothing was sent.' },
};

export function providerPayoutRoutes(deps: ProviderPayoutDeps) {
  /** The account's connector, once the account is known to belong to the caller's scope. */
  async function connectorFor(scope: Scope, code: string, accountId: string): Promise<Connector | undefined> {
    if (!/^pac_\w{1,80}$/.test(accountId)) throw invalidField('provider_account_id', 'provider_account_id must be a provider account id (pac_…)');
    if (!(await deps.credentials.belongsTo(accountId, scope, code))) {
      throw serviceError('resource_not_found', `No ${code} account ${accountId} with credentials in this project and mode`, { param: 'provider_account_id' });
    }
    return deps.connectors.forProvider(code);
  }

  /** Runs a provider call under the deadline, also stopped when the caller gives up. */
  const bounded = <T>(ctx: HandlerContext, call: (signal: AbortSignal) => Promise<T>) =>
    withDeadline(deps.providerTimeoutMs, (signal) => call(AbortSignal.any([signal, ctx.signal])));

  return (router: ConnectRouter) => {
    router.service(ProviderPayoutsService, {
      async sendPayout(req, ctx) {
        const scope = requireScope(req.scope);
        if (!/^po_/.test(req.payoutId)) throw invalidField('payout_id', 'payout_id must be a payout id (po_…)');
        if (req.amount < 1n) throw invalidField('amount', 'amount must be at least 1');
        if (!/^[A-Z]{3}$/.test(req.currency)) throw invalidField('currency', 'currency must be a 3-letter ISO 4217 code');
        const connector = await connectorFor(scope, req.providerCode, req.providerAccountId);
        if (!connector?.payout) return { answer: NOT_SUPPORTED };
        const d = req.destination;
        try {
          const result = await bounded(ctx, (signal) => connector.payout!({
            account: { providerCode: req.providerCode, id: req.providerAccountId },
            payoutId: req.payoutId,
            amount: req.amount,
            currency: req.currency,
            destination: { type: d?.type ?? '', token: d?.token ?? null, holderName: d?.holderName ?? null, country: d?.country ?? null },
            description: req.description,
            signal,
          }));
          return { answer: answerOf(result) };
        } catch (err) {
          // No answer (the deadline, or a connector's own failure): the payout may have been sent.
          deps.logger.warn({ payout_id: req.payoutId, err: (err as Error).message }, 'payout outcome unknown');
          return { answer: { outcome: 'timeout', providerMessage: 'The provider did not answer' } };
        }
      },

      async getPayoutStatus(req, ctx) {
        const scope = requireScope(req.scope);
        const connector = await connectorFor(scope, req.providerCode, req.providerAccountId);
        // Without a status query the payout's own idempotent send is the only way to ask.
        if (!connector?.payoutStatus) return { found: false };
        try {
          const status = await bounded(ctx, (signal) => connector.payoutStatus!({
            account: { providerCode: req.providerCode, id: req.providerAccountId },
            payoutId: req.payoutId,
            providerPayoutId: req.providerPayoutId ?? null,
            currency: req.currency,
            signal,
          }));
          return status.found ? { found: true, answer: answerOf(status) } : { found: false };
        } catch (err) {
          throw serviceError('provider_unavailable', `The provider could not be asked about ${req.payoutId}: ${(err as Error).message}`);
        }
      },
    });
  };
}
