import type { Call } from './load.js';
import { freePort, spawnPart, waitForHttp, type PartProcess } from '../helpers/processes.js';

// The benchmarks' baseline (baseline-server.ts: a bare Fastify route doing one durable Postgres
// insert per request) as its own process, and the request every load sends it.

export interface BaselineServer {
  url: string;
  process: PartProcess;
}

export async function startBaseline(databaseUrl: string): Promise<BaselineServer> {
  const port = await freePort();
  const server = spawnPart('baseline', 'test/bench/baseline-server.js', { DATABASE_URL: databaseUrl, PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(server, `${url}/`);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { url, process: server };
}

export const baselineInsert = (): Call => ({
  method: 'POST', path: '/insert', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ amount: 1000, currency: 'EUR' }),
});
