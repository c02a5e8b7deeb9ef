// Fails loudly, naming what is missing, when CI's Postgres or NATS JetStream does not answer.
import { connect } from 'nats';
import pg from 'pg';

const failures = [];

async function checkPostgres(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const { rows } = await client.query('SHOW server_version');
    console.log(`postgres ok: ${rows[0].server_version}`);
  } catch (err) {
    failures.push(`Postgres at DATABASE_URL does not answer: ${err.message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkNats(url) {
  let nc;
  try {
    nc = await connect({ servers: url, timeout: 5000 });
    const info = await (await nc.jetstreamManager()).getAccountInfo();
    console.log(`nats ok: ${nc.info?.version}, JetStream storage in use ${info.storage} bytes`);
  } catch (err) {
    failures.push(`NATS JetStream at NATS_URL does not answer: ${err.message}`);
  } finally {
    await nc?.close();
  }
}

for (const name of ['DATABASE_URL', 'NATS_URL']) {
  if (!process.env[name]) failures.push(`${name} is not set`);
}
if (failures.length === 0) await Promise.all([checkPostgres(process.env.DATABASE_URL), checkNats(process.env.NATS_URL)]);
if (failures.length > 0) {
  for (const f of failures) console.error(`ci: ${f}`);
  process.exit(1);
}
