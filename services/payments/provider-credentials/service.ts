import type { ConnectRouter } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ProviderCredentialsService } from '../../../proto/gen/svc/payments/v1/provider_credentials_pb.js';
import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import { requireScope } from '../../platform/request-guards.js';
import { SecretKeyMissingError } from '../../platform/secret-box.js';
import { invalidField, serviceError } from '../../contract/index.js';
import type { ConnectorRegistry, CredentialCheck } from '../../connectors/index.js';
import { baseUrlTrust } from '../../connectors/provider-base-url.js';
import type { ProviderChecks } from '../../connectors/provider-definition.js';
import { UNREACHABLE_MESSAGE } from '../../connectors/provider-fetch.js';
import { checkedValues, fieldNames } from './fields.js';
import type { CredentialsRecord, CredentialStore } from './store.js';

// ProviderCredentialsService: no answer here carries a credential value, only field names.

export interface CredentialServiceDeps {
  store: CredentialStore;
  connectors: ConnectorRegistry;
  /** The providers' definitions by code: their credential fields and official hosts. */
  providers: ReadonlyMap<string, ProviderChecks>;
  clock: Clock;
  logger: Logger;
  /** How long `check` waits for the provider, as any provider call (PROVIDER_TIMEOUT_MS). */
  providerTimeoutMs: number;
  /** PROVIDER_BASE_URL_ALLOWLIST: origins an api_base_url may name without passing the address policy. */
  baseUrlAllowlist: readonly string[];
}

function toProto(r: CredentialsRecord) {
  return {
    providerAccountId: r.providerAccountId, providerCode: r.providerCode, mode: r.mode, fields: r.fields,
    updatedAt: timestampFromDate(r.updatedAt),
  };
}

type CheckAnswer = { ok: boolean; reason: string; providerErrorCode?: string; message: string };

const fromCheck = (c: CredentialCheck): CheckAnswer => (c.ok
  ? { ok: true, reason: '', message: 'The provider accepted the credentials.' }
  : { ok: false, reason: 'refused', providerErrorCode: c.providerCode ?? undefined, message: c.message });

/**
 * The connector's harmless authenticated call for `svc provider test`, bounded like every provider
 * call; never throws: an account that cannot be checked says why.
 */
export function credentialCheck(deps: Pick<CredentialServiceDeps, 'connectors' | 'providers' | 'logger' | 'providerTimeoutMs' | 'baseUrlAllowlist'> & {
  store: Pick<CredentialStore, 'describe' | 'source'>;
}) {
  const { store, connectors } = deps;
  return async function check(accountId: string, providerCode: string): Promise<CheckAnswer> {
    const connector = connectors.forProvider(providerCode);
    if (!connector) {
      return { ok: false, reason: 'no_connector', message: `No connector for ${providerCode} is installed in this deployment` };
    }
    if (!connector.checkCredentials) {
      return { ok: false, reason: 'not_supported', message: `The ${providerCode} connector cannot check credentials` };
    }
    if (!(await store.describe(accountId))) {
      return { ok: false, reason: 'no_credentials', message: `Provider account ${accountId} has no stored credentials` };
    }
    // A host the merchant chose may be probed through us: a silence there reads like a refusal.
    const baseUrl = (await store.source().get(accountId))?.values.api_base_url;
    const unvetted = baseUrlTrust(deps.providers.get(providerCode)?.officialHost, baseUrl, deps.baseUrlAllowlist) === 'merchant';
    const unreachable = `${providerCode} could not be asked: ${UNREACHABLE_MESSAGE}`;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<CheckAnswer>((resolve) => {
      timer = setTimeout(() => resolve({
        ok: false, reason: 'error',
        message: unvetted ? unreachable : `${providerCode} did not answer within ${deps.providerTimeoutMs} ms`,
      }), deps.providerTimeoutMs);
    });
    try {
      return await Promise.race([connector.checkCredentials({ providerCode, id: accountId }).then(fromCheck), deadline]);
    } catch (err) {
      // Only the error's class and message: a connector's error never quotes the stored values.
      deps.logger.warn({ providerAccountId: accountId, providerCode, err: (err as Error).name }, 'credential check failed');
      return { ok: false, reason: 'error', message: unvetted ? unreachable : `${providerCode} could not be asked: ${(err as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  };
}

export function providerCredentialRoutes(deps: CredentialServiceDeps) {
  const { store } = deps;
  const check = credentialCheck(deps);

  return (router: ConnectRouter) => {
    router.service(ProviderCredentialsService, {
      async putCredentials(req) {
        const scope = requireScope(req.scope);
        if (!/^pac_[a-z0-9]{1,60}$/.test(req.providerAccountId)) {
          throw invalidField('provider_account_id', 'provider_account_id must be a provider account id (pac_…)');
        }
        const values = checkedValues(deps.providers, req.providerCode, scope.mode, req.values, deps.baseUrlAllowlist);
        try {
          const stored = await store.put({
            providerAccountId: req.providerAccountId, merchantId: scope.merchantId, projectId: scope.projectId,
            mode: scope.mode, providerCode: req.providerCode, values,
          }, deps.clock.now());
          return { credentials: toProto(stored) };
        } catch (err) {
          if (err instanceof SecretKeyMissingError) {
            throw serviceError('not_configured',
              `Provider credentials are stored encrypted and this deployment has no key: ${err.message}. ` +
              'Set it on the payments part and connect again.');
          }
          throw err;
        }
      },

      async deleteCredentials(req) {
        return { deleted: await store.delete(req.providerAccountId) };
      },

      async describeCredentials(req) {
        const stored = await store.describe(req.providerAccountId);
        return { credentials: stored && toProto(stored) };
      },

      async checkCredentials(req) {
        return check(req.providerAccountId, req.providerCode);
      },

      async listCredentialFields() {
        const providers = [...deps.providers.values()].sort((a, b) => a.code.localeCompare(b.code))
          .map((p) => ({ providerCode: p.code, ...fieldNames(p) }));
        return { providers };
      },
    });
  };
}
