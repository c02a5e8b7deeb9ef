import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../services/platform/metrics.js';
import { ERRORS } from '../../services/contract/index.js';
import { errorCodeOf } from './errors.js';

// The gateway's HTTP series. A request is labelled by its route's pattern as registered
// (`/v1/payments/:id`, never the URL), so the label set is the routes the gateway has: collected
// from Fastify's onRoute as they are added. Requests matching no route are `unmatched`.

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const STATUS = { matches: (v: string) => /^[1-5]\d\d$/.test(v) };
const UNMATCHED = 'unmatched';

export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  const routes = new Set<string>([UNMATCHED]);
  app.addHook('onRoute', (route) => {
    routes.add(route.url);
  });
  const labels = { route: { matches: (v: string) => routes.has(v) }, method: METHODS, status: STATUS };
  const requests = metrics.counter('svc_http_requests_total', 'Gateway HTTP requests by route pattern, method and status', labels);
  const seconds = metrics.histogram('svc_http_request_duration_seconds', 'Gateway HTTP request latency, until the response is sent', labels);
  const errors = metrics.counter('svc_http_errors_total', 'Gateway error responses by the contract\'s error code', {
    code: Object.keys(ERRORS),
  });
  const refused = metrics.counter('svc_http_rate_limited_total', 'Requests refused by the per-key rate limit (429 rate_limited)', {});
  const replays = metrics.counter('svc_http_idempotent_replays_total', 'Requests answered from an idempotency record (idempotent-replayed: true)', {
    route: labels.route,
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const l = { route: request.is404 ? UNMATCHED : route, method: request.method, status: String(reply.statusCode) };
    requests.inc(l);
    seconds.observe(l, reply.elapsedTime / 1000);
    const code = errorCodeOf(reply);
    if (code !== undefined) errors.inc({ code });
    if (code === 'rate_limited') refused.inc({});
    if (reply.getHeader('idempotent-replayed') === 'true') replays.inc({ route: l.route });
  });
}
