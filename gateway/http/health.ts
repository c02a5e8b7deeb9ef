import type { Client } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import type { Health } from '../../proto/gen/grpc/health/v1/health_pb.js';
import { HealthCheckResponse_ServingStatus as Status } from '../../proto/gen/grpc/health/v1/health_pb.js';
import type { Clock } from '../../services/platform/clock.js';
import type { ServiceName } from '../../services/platform/config.js';
import { isDatabaseClock } from '../../services/platform/database-clock.js';
import { pingDatabase, type Pool } from '../../services/platform/db.js';

// Probes for Kubernetes and load balancers, outside /v1 (no API key, not in the OpenAPI document).
// /healthz: the process answers HTTP (liveness: restarting it would help only if it did not).
// /readyz: the gateway can serve, i.e. its Postgres answers and every part it calls reports SERVING
// on grpc.health.v1, each asked with a deadline that fits within the probe's own timeout. A part
// reports NOT_SERVING while its own Postgres or NATS is down (services/platform/health-watch.ts), so
// a broken NATS takes the gateway out of rotation too: requests would fail there anyway. `clock`:
// the gateway's own clock is within CLOCK_SKEW_MAX_MS of the database's (database-clock.ts).

export const HEALTHZ_PATH = '/healthz';
export const READYZ_PATH = '/readyz';
/** Each check's deadline; all run at once, so /readyz answers within about this long. */
export const READY_CHECK_TIMEOUT_MS = 1_000;

type Check = 'postgres' | 'clock' | ServiceName;

async function partServing(client: Client<typeof Health>): Promise<boolean> {
  try {
    const res = await client.check({ service: '' }, { timeoutMs: READY_CHECK_TIMEOUT_MS });
    return res.status === Status.SERVING;
  } catch {
    return false;
  }
}

/** Every check by name, up or down. */
export async function readiness(
  pool: Pool, parts: Record<ServiceName, Client<typeof Health>>, clock?: Clock,
): Promise<Partial<Record<Check, boolean>>> {
  const names = Object.keys(parts) as ServiceName[];
  const [postgres, ...serving] = await Promise.all([
    pingDatabase(pool, READY_CHECK_TIMEOUT_MS),
    ...names.map((name) => partServing(parts[name])),
  ]);
  const clockCheck = clock && isDatabaseClock(clock) ? { clock: clock.trusted() } : {};
  return { postgres, ...clockCheck, ...Object.fromEntries(names.map((name, i) => [name, serving[i]])) };
}

export function healthRoutes(pool: Pool, parts: Record<ServiceName, Client<typeof Health>>, clock?: Clock) {
  return async (app: FastifyInstance): Promise<void> => {
    // Probed every few seconds: not worth a log line each.
    const quiet = { logLevel: 'warn' as const };
    app.get(HEALTHZ_PATH, quiet, async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'alive' }));
    app.get(READYZ_PATH, quiet, async (_request, reply) => {
      const checks = await readiness(pool, parts, clock);
      const down = Object.entries(checks).filter(([, up]) => !up).map(([name]) => name);
      const body = {
        status: down.length === 0 ? 'ready' : 'not_ready',
        down,
        checks: Object.fromEntries(Object.entries(checks).map(([name, up]) => [name, up ? 'up' : 'down'])),
      };
      return reply.code(down.length === 0 ? 200 : 503).header('cache-control', 'no-store').send(body);
    });
  };
}
