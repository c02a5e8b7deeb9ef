// The benchmark's baseline: a bare Fastify route doing one durable Postgres insert per request.
import Fastify from 'fastify';
import pg from 'pg';
import { newId } from '../../services/platform/ids.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query('CREATE TABLE IF NOT EXISTS bench_baseline (id text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
const app = Fastify();
app.post('/insert', async (request, reply) => {
  const id = newId('pay');
  await pool.query('INSERT INTO bench_baseline (id, body) VALUES ($1, $2)', [id, JSON.stringify(request.body)]);
  return reply.code(201).send({ id });
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => pool.end()).then(() => process.exit(0)));
