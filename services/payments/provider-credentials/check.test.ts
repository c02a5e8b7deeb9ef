import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../platform/logger.js';
import { createConnectorRegistry, type Connector } from '../../connectors/index.js';
import { providersByCode } from '../../connectors/provider-definition.js';
import { PROVIDERS } from '../../connectors/providers.js';
import { credentialCheck } from './service.js';

// What `svc provider test` answers when the connector cannot be asked, or does not answer.

const stored = {
  describe: async (id: string) => (id === 'pac_stored' ? ({} as never) : undefined),
  source: () => ({ get: async () => ({ mode: 'test' as const, values: {} }) }),
};
const logger = createLogger('test', 'silent');
const base: Connector = {
  authorize: async () => { throw new Error('unused'); },
  getStatus: async () => ({ found: false }),
  refund: async () => { throw new Error('unused'); },
};

test('no installed connector, no checkCredentials, no credentials, or no answer: each says so', async () => {
  const check = credentialCheck({
    store: stored, logger, providerTimeoutMs: 50, baseUrlAllowlist: [],
    providers: providersByCode(PROVIDERS),
    connectors: createConnectorRegistry({
      plain: base,
      silent: { ...base, checkCredentials: () => new Promise(() => undefined) },
      broken: { ...base, checkCredentials: async () => { throw new Error('socket hang up'); } },
      fine: { ...base, checkCredentials: async () => ({ ok: true }) },
    }),
  });
  assert.deepEqual(await check('pac_stored', 'missing'), {
    ok: false, reason: 'no_connector', message: 'No connector for missing is installed in this deployment',
  });
  assert.equal((await check('pac_stored', 'plain')).reason, 'not_supported');
  assert.equal((await check('pac_other', 'fine')).reason, 'no_credentials');
  assert.match((await check('pac_stored', 'silent')).message, /did not answer within 50 ms/);
  assert.deepEqual([(await check('pac_stored', 'broken')).reason], ['error']);
  assert.equal((await check('pac_stored', 'fine')).ok, true);
});

test('a merchant-chosen api_base_url: silence and a failure read alike, with none of the error\'s text', async () => {
  const chosen = {
    ...stored, source: () => ({ get: async () => ({ mode: 'test' as const, values: { api_base_url: 'https://sandbox.example.com' } }) }),
  };
  const check = credentialCheck({
    store: chosen, logger, providerTimeoutMs: 50, baseUrlAllowlist: [],
    providers: providersByCode(PROVIDERS),
    connectors: createConnectorRegistry({
      silent: { ...base, checkCredentials: () => new Promise(() => undefined) },
      broken: { ...base, checkCredentials: async () => { throw new Error('connect ECONNREFUSED 10.0.0.5:5432 (db.internal)'); } },
    }),
  });
  const silent = await check('pac_stored', 'silent');
  const broken = await check('pac_stored', 'broken');
  assert.equal(silent.message.replace('silent', 'P'), broken.message.replace('broken', 'P'));
  assert.doesNotMatch(broken.message, /ECONNREFUSED|10\.0\.0\.5|internal|50 ms/);
});
