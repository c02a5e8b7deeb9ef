import { withTransaction, type Pool } from '../platform/db.js';
import { providerRowId, type ProviderFacts } from '../contract/provider-facts.js';

// The licensed providers' rows, written at start from their definitions (the one list, handed in
// by the entry point), not by migrations. Each row is one upsert that changes nothing when the row
// already says the same; replicas starting at once take turns (a lock for the writing's
// transaction), because two inserting the same new row at once collide on its id, the unique key
// that is not the upsert's arbiter, and one would fail its start. Ids stay prv_<code>, which
// accounts and data refer to. A provider dropped from the list keeps its row (its accounts still
// name it) and routes to no connector: its attempts fail as provider_unavailable.

const UPSERT_PROVIDER = `
  INSERT INTO providers (id, code, name, kind, currencies, countries, methods)
  VALUES ($1, $2, $3, 'licensed', $4, $5, $6)
  ON CONFLICT (code) DO UPDATE SET
    name = EXCLUDED.name, currencies = EXCLUDED.currencies, countries = EXCLUDED.countries, methods = EXCLUDED.methods
  WHERE providers.kind = 'licensed'
    AND (providers.name, providers.currencies, providers.countries, providers.methods)
        IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.currencies, EXCLUDED.countries, EXCLUDED.methods)`;

const UPSERT_PAYOUTS = `
  INSERT INTO payout_capabilities (provider_id, destination_types, fee_fixed, fee_bps) VALUES ($1, $2, $3, $4)
  ON CONFLICT (provider_id) DO UPDATE SET
    destination_types = EXCLUDED.destination_types, fee_fixed = EXCLUDED.fee_fixed, fee_bps = EXCLUDED.fee_bps
  WHERE (payout_capabilities.destination_types, payout_capabilities.fee_fixed, payout_capabilities.fee_bps)
        IS DISTINCT FROM (EXCLUDED.destination_types, EXCLUDED.fee_fixed, EXCLUDED.fee_bps)`;

/** Writes each provider's row and payout capability as its definition states them. */
export async function upsertProviders(pool: Pool, providers: readonly ProviderFacts[]): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('routing-risk provider catalogue'))`);
    for (const p of providers) {
      const id = providerRowId(p.code);
      await client.query(UPSERT_PROVIDER, [id, p.code, p.name, p.currencies, p.countries, p.methods]);
      const payouts = p.capabilities.payouts;
      if (payouts) {
        await client.query(UPSERT_PAYOUTS, [id, payouts.destinationTypes, payouts.feeFixed, payouts.feeBps]);
      } else {
        await client.query('DELETE FROM payout_capabilities WHERE provider_id = $1', [id]);
      }
    }
  });
}
