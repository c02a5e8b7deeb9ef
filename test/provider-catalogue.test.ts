// routing-risk writes the licensed providers' rows from their definitions at start
// (services/routing-risk/provider-catalogue.ts): replicas starting together, a restart, a
// definition that changes, and a provider that loses its payouts. And the list refuses codes it
// cannot use.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { providersByCode, type ProviderDefinition } from '../services/connectors/provider-definition.js';
import { VAULTS } from '../services/contract/enums.js';
import { PROVIDERS } from '../services/connectors/providers.js';
import { upsertProviders } from '../services/routing-risk/provider-catalogue.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { migrate } from '../services/platform/migrate.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { acmePayProvider } from './providers/acme-pay/index.js';

let db: TestDatabase;
let pools: Pool[];

before(async () => {
  db = await createTestDatabase();
  pools = [createPool(db.url, 'routing_risk', 2), createPool(db.url, 'routing_risk', 2)];
  await migrate(pools[0], 'routing_risk', 'services/routing-risk');
});
after(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await db.drop();
});

const rows = async () => (await pools[0].query(
  `SELECT p.id, p.name, p.methods, c.destination_types, p.xmin::text AS version FROM providers p
   LEFT JOIN payout_capabilities c ON c.provider_id = p.id WHERE p.kind = 'licensed' ORDER BY p.code`,
)).rows;

test('two replicas write the same rows at once; a restart changes nothing; a changed definition is written', async () => {
  const list = [...PROVIDERS, acmePayProvider];
  await Promise.all(pools.map((p) => upsertProviders(p, list)));
  const first = await rows();
  assert.deepEqual(first.map((r) => [r.id, r.name, r.methods, r.destination_types]), [
    ['prv_acme_pay', 'Acme Pay', ['card'], null],
    ['prv_adyen', 'Adyen', ['card', 'wallet'], null],
    ['prv_basis_theory', 'Basis Theory', [], null],
    ['prv_checkout', 'Checkout.com', ['card'], null],
    ['prv_mollie', 'Mollie', ['local', 'open_banking', 'bank_transfer'], null],
    ['prv_paypal', 'PayPal', ['wallet'], null],
    ['prv_stripe', 'Stripe', ['card', 'wallet'], ['bank_account', 'card_token']],
    // A vault connection's "provider": no method, never a route.
    ['prv_stripe_vault', 'Stripe Vault and Forward', [], null],
  ]);
  await upsertProviders(pools[1], list);
  assert.deepEqual(await rows(), first, 'a restart rewrites no row (same row versions)');

  const renamed: ProviderDefinition = {
    ...acmePayProvider, name: 'Acme Payments', methods: ['card', 'wallet'],
    capabilities: { ...acmePayProvider.capabilities, payouts: { destinationTypes: ['bank_account'], feeFixed: 10, feeBps: 0 } },
  };
  await upsertProviders(pools[0], [...PROVIDERS, renamed]);
  const changed = (await rows()).find((r) => r.id === 'prv_acme_pay');
  assert.deepEqual([changed.name, changed.methods, changed.destination_types], ['Acme Payments', ['card', 'wallet'], ['bank_account']]);

  // Without payouts in its definition, routing must no longer send it payouts.
  await upsertProviders(pools[0], list);
  assert.equal((await rows()).find((r) => r.id === 'prv_acme_pay').destination_types, null);
  // The demo rows are the migration's, untouched.
  const demo = await pools[0].query(`SELECT count(*)::int AS n FROM providers WHERE kind = 'demo'`);
  assert.equal(demo.rows[0].n, 3);
});

test('the list refuses a code listed twice, a demo_ code and a malformed one', () => {
  assert.throws(() => providersByCode([...PROVIDERS, PROVIDERS[0]]), /listed twice/);
  assert.throws(() => providersByCode([{ ...acmePayProvider, code: 'demo_acme' }]), /not usable/);
  assert.throws(() => providersByCode([{ ...acmePayProvider, code: 'Acme Pay' }]), /not usable/);
  assert.deepEqual([...providersByCode(PROVIDERS).keys()], ['stripe', 'adyen', 'checkout', 'mollie', 'paypal', 'stripe_vault', 'basis_theory']);
});

test('each vault a credential may name (the contract\'s VAULTS) is served by one shipped definition, which says whose tokens its references are', () => {
  const vaults = PROVIDERS.flatMap((p) => (p.capabilities.vault ? [p.capabilities.vault] : []));
  assert.deepEqual([...vaults].sort(), [...VAULTS].sort());
  const issuers = Object.fromEntries(PROVIDERS.filter((p) => p.capabilities.vault).map((p) => [p.capabilities.vault, p.capabilities.vaultTokenIssuer ?? null]));
  assert.deepEqual(issuers, { stripe: 'stripe', basis_theory: null });
});
