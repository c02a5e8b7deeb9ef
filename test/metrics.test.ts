// Prometheus metrics: a scenario on the whole stack, then GET /metrics scraped and
// parsed, and the series that moved checked by exact deltas; no label value may look like an id,
// and promtool check metrics faults none of the project's series.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Metrics, serveMetrics, type MetricsServer } from '../services/platform/metrics.js';
import { eventually } from './helpers/eventually.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { onPath, testWith } from './helpers/tools.js';
import { startReceiver, type Receiver } from './webhooks-support.js';

type Sample = { name: string; labels: Record<string, string>; value: number };

/** The text exposition, one sample per line (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `unreadable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** Sum of a series' samples whose labels include `where`. */
function sum(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}

const ID_LIKE = /(^|[/=])(pay|att|rf|re|evt|key|prj|mer|we|whsec|req|po|del|sk|svc_op)_[A-Za-z0-9]/;

describe('Prometheus metrics on GET /metrics', () => {
  let stack: TestStack;
  let server: MetricsServer;
  let receiver: Receiver;
  let key: string;
  let projectId: string;

  before(async () => {
    stack = await startTestStack({ metrics: new Metrics() });
    server = await serveMetrics(stack.metrics, 0, '127.0.0.1');
    receiver = await startReceiver(204);
    ({ secret: key, projectId } = await stack.newMerchantKey());
    const created = await stack.manage('POST', `/projects/${projectId}/webhook-endpoints`, {
      mode: 'test', url: receiver.url, events: ['refund.successful'],
    });
    assert.equal(created.status, 201);
  });
  after(async () => {
    await receiver?.close();
    await server?.close();
    await stack?.close();
  });

  const scrapeText = async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  const scrape = async () => parse(await scrapeText());
  const pay = (scenario: string, headers: Record<string, string> = {}) => request(stack.baseUrl, 'POST', '/v1/payments', {
    key, headers, body: { amount: 1000, currency: 'EUR', payment_method: 'card', test_scenario: scenario },
  });

  test('a payment, a failover, a refund, a replay and a webhook delivery move their series by exactly that much', async () => {
    const before = await scrape();

    const ok = await pay('success', { 'idempotency-key': 'metrics-replay-1' });
    assert.equal(ok.status, 201);
    const replayed = await pay('success', { 'idempotency-key': 'metrics-replay-1' });
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    const failover = await pay('failover');
    assert.equal(failover.status, 201);
    assert.equal(failover.body.status, 'successful');
    assert.equal(failover.body.attempts.length, 2);
    const refund = await request(stack.baseUrl, 'POST', `/v1/payments/${ok.body.id}/refund`, { key, body: { amount: 400 } });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.status, 'successful');
    assert.equal((await request(stack.baseUrl, 'GET', `/v1/payments/${ok.body.id}`, { key })).status, 200);
    assert.equal((await request(stack.baseUrl, 'GET', '/v1/payments/pay_missing0000000000000000', { key })).status, 404);
    assert.equal((await request(stack.baseUrl, 'GET', '/no/such/route/pay_x')).status, 404);
    await receiver.waitFor(1);

    const now = await eventually('the webhook attempt to be counted', async () => {
      const s = await scrape();
      return sum(s, 'svc_webhook_attempts_total') - sum(before, 'svc_webhook_attempts_total') >= 1 ? s : undefined;
    }, 10_000);
    const delta = (name: string, where: Record<string, string> = {}) => sum(now, name, where) - sum(before, name, where);

    // Gateway HTTP: by route pattern, never the URL.
    assert.equal(delta('svc_http_requests_total', { route: '/v1/payments', method: 'POST', status: '201' }), 3);
    assert.equal(delta('svc_http_requests_total', { route: '/v1/payments/:id/refund', method: 'POST', status: '201' }), 1);
    assert.equal(delta('svc_http_requests_total', { route: '/v1/payments/:id', method: 'GET', status: '200' }), 1);
    assert.equal(delta('svc_http_requests_total', { route: '/v1/payments/:id', method: 'GET', status: '404' }), 1);
    assert.equal(delta('svc_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }), 1);
    assert.equal(delta('svc_http_request_duration_seconds_count', { route: '/v1/payments', method: 'POST', status: '201' }), 3);
    assert.equal(delta('svc_http_errors_total', { code: 'resource_not_found' }) + delta('svc_http_errors_total', { code: 'route_not_found' }), 2);
    assert.equal(delta('svc_http_idempotent_replays_total', { route: '/v1/payments' }), 1);
    assert.equal(delta('svc_http_rate_limited_total'), 0);

    // gRPC: the gateway's calls, as served by payments and as made by the gateway (in process here).
    const create = { service: 'svc.payments.v1.PaymentsService', method: 'CreatePayment', code: 'OK' };
    assert.equal(delta('svc_grpc_server_calls_total', create), 2);
    assert.equal(delta('svc_grpc_client_calls_total', create), 2);
    assert.equal(delta('svc_grpc_server_duration_seconds_count', create), 2);
    assert.ok(delta('svc_grpc_server_calls_total', { service: 'svc.routing.v1.RoutingService', method: 'PlanPayment', code: 'OK' }) >= 2);

    // Payments, failovers, provider calls, refunds.
    assert.equal(delta('svc_payments_total', { status: 'successful', method: 'card' }), 2);
    assert.equal(delta('svc_payment_failovers_total'), 1);
    assert.equal(delta('svc_provider_calls_total', { operation: 'authorize' }), 3);
    assert.equal(delta('svc_provider_calls_total', { operation: 'authorize', outcome: 'success' }), 2);
    assert.equal(delta('svc_provider_call_duration_seconds_count', { operation: 'authorize' }), 3);
    assert.equal(delta('svc_provider_calls_total', { operation: 'refund', outcome: 'success' }), 1);
    assert.equal(delta('svc_refunds_total', { status: 'successful' }), 1);

    // Webhooks: one scheduled attempt, answered 204.
    assert.equal(delta('svc_webhook_attempts_total', { outcome: 'succeeded', trigger: 'scheduled' }), 1);
    assert.equal(delta('svc_webhook_attempt_duration_seconds_count', { outcome: 'succeeded', trigger: 'scheduled' }), 1);
    assert.equal(delta('svc_webhook_exhausted_total'), 0);

    // Consumers: both durable consumers read every event subject, so once neither has anything
    // pending they have handled the same events, each without a failure.
    const drained = await eventually('both consumers to catch up', async () => {
      const s = await scrape();
      const d = (name: string, where: Record<string, string>) => sum(s, name, where) - sum(before, name, where);
      const ledger = d('svc_consumer_processing_seconds_count', { consumer: 'ledger', outcome: 'ok' });
      const idle = ['ledger', 'webhooks'].every((consumer) => sum(s, 'svc_consumer_pending', { consumer }) === 0);
      return idle && ledger === d('svc_consumer_processing_seconds_count', { consumer: 'webhooks', outcome: 'ok' }) ? s : undefined;
    }, 10_000);
    for (const consumer of ['ledger', 'webhooks']) {
      assert.ok(drained.some((x) => x.name === 'svc_consumer_pending' && x.labels.consumer === consumer), `pending of ${consumer}`);
      // At least the two payments and the refund.
      assert.ok(sum(drained, 'svc_consumer_processing_seconds_count', { consumer, outcome: 'ok' })
        - sum(before, 'svc_consumer_processing_seconds_count', { consumer, outcome: 'ok' }) >= 3, consumer);
      assert.equal(sum(drained, 'svc_consumer_processing_seconds_count', { consumer, outcome: 'error' }), 0);
    }
  });

  test('gauges are read on scrape: outbox, webhook queue, Postgres pools; default process metrics are there', async () => {
    const s = await eventually('the payments outbox to be published', async () => {
      const got = await scrape();
      return sum(got, 'svc_outbox_backlog_events', { part: 'payments' }) === 0 ? got : undefined;
    }, 10_000);
    const names = new Set(s.map((x) => x.name));
    for (const part of ['payments', 'ledger', 'payouts']) {
      assert.ok(s.some((x) => x.name === 'svc_outbox_backlog_events' && x.labels.part === part), `outbox backlog of ${part}`);
      assert.ok(s.some((x) => x.name === 'svc_outbox_oldest_unpublished_age_seconds' && x.labels.part === part));
      assert.ok(s.some((x) => x.name === 'svc_outbox_parked_events' && x.labels.part === part));
    }
    assert.equal(sum(s, 'svc_outbox_oldest_unpublished_age_seconds', { part: 'payments' }), 0);
    assert.equal(sum(s, 'svc_outbox_parked_events'), 0);
    for (const part of ['gateway', 'payments', 'routing-risk', 'ledger', 'payouts', 'webhooks']) {
      assert.ok(sum(s, 'svc_db_pool_connections', { part, state: 'total' }) >= 1, `pool of ${part}`);
      assert.ok(s.some((x) => x.name === 'svc_db_pool_connections' && x.labels.part === part && x.labels.state === 'waiting'));
    }
    assert.ok(s.some((x) => x.name === 'svc_webhook_queue_deliveries' && x.labels.state === 'waiting'));
    assert.ok(names.has('process_cpu_user_seconds_total'));
    assert.ok(names.has('nodejs_eventloop_lag_seconds'));
  });

  test('endpoints by state and attempts held back by an endpoint\'s rate are counted', async () => {
    const ids: string[] = [];
    for (const path of ['manual', 'failing', 'paused', 'swept']) {
      const made = await stack.manage('POST', `/projects/${projectId}/webhook-endpoints`, {
        mode: 'test', url: `${receiver.url}/${path}`, events: ['refund.successful'],
      });
      assert.equal(made.status, 201);
      ids.push(made.body.id);
    }
    const [manual, failing, paused, swept] = ids;
    assert.equal((await stack.manage('POST', `/projects/${projectId}/webhook-endpoints/${manual}/disable?mode=test`)).status, 200);
    // What the dispatcher's records and the failing sweep would have written.
    await stack.query('UPDATE webhooks.endpoints SET failing_since = now() - interval \'1 hour\' WHERE id = $1', [failing]);
    await stack.query('UPDATE webhooks.endpoints SET retry_after_until = now() + interval \'1 hour\', failing_since = now() WHERE id = $1', [paused]);
    await stack.query('UPDATE webhooks.endpoints SET enabled = false, disabled_reason = \'failing\', disabled_at = now() WHERE id = $1', [swept]);
    const s = await scrape();
    for (const [state, n] of Object.entries({ healthy: 1, failing: 1, paused: 1, disabled_manual: 1, disabled_failing: 1 })) {
      assert.equal(sum(s, 'svc_webhook_endpoints', { state }), n, state);
    }
    assert.ok(s.some((x) => x.name === 'svc_webhook_throttled_total'), 'the throttled counter is exposed');
  });

  test('no label value is an id, a URL or a secret; only GET /metrics is served', async () => {
    const s = await scrape();
    for (const { name, labels } of s) {
      for (const [k, v] of Object.entries(labels)) {
        assert.doesNotMatch(v, ID_LIKE, `${name}{${k}="${v}"} looks like an id`);
        assert.doesNotMatch(v, /^https?:|\?/, `${name}{${k}="${v}"} looks like a URL`);
        assert.ok(v.length <= 80, `${name}{${k}} is ${v.length} characters`);
      }
    }
    assert.ok(s.some((x) => x.labels.route === '/v1/payments/:id'), JSON.stringify([...new Set(s.map((x) => x.labels.route))]));
    assert.equal((await fetch(`http://127.0.0.1:${server.port}/other`)).status, 404);
    assert.equal((await fetch(`http://127.0.0.1:${server.port}/metrics`, { method: 'POST' })).status, 404);
  });

  // After the scenario above, so the histograms and labelled series have samples.
  testWith({ promtool: onPath('promtool', '--version') }, 'the scrape passes promtool check metrics (exposition format and naming)', async () => {
    const text = await scrapeText();
    assert.ok(text.includes('svc_payments_total'), 'a scrape after the scenario');
    // promtool exits 1 on a text it cannot parse, 3 on naming problems, each named on a line.
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.ok(checked.status === 0 || checked.status === 3, `promtool check metrics exited ${checked.status}: ${checked.stderr}${checked.stdout}`);
    const problems = `${checked.stderr}${checked.stdout}`.split('\n').filter(Boolean);
    // prom-client's default gauges nodejs_active_{handles,requests,resources}_total end in _total; their
    // names are the library's, which dashboards already know them by.
    const ours = problems.filter((line) => !/^nodejs_active_\w+_total non-counter metrics should not have "_total" suffix$/.test(line));
    assert.deepEqual(ours, [], 'promtool check metrics');
  });

  test('a value outside a label\'s enumeration is recorded as other', async () => {
    const m = new Metrics({ defaults: false });
    const c = m.counter('t_total', 'test', { status: ['ok', 'failed'], route: { matches: (v: string) => v.startsWith('/v1/') } });
    c.inc({ status: 'pay_123', route: '/v1/payments/:id' });
    c.inc({ status: 'ok', route: 'https://x.test/?secret=1' });
    const s = parse(await m.text());
    assert.equal(sum(s, 't_total', { status: 'other', route: '/v1/payments/:id' }), 1);
    assert.equal(sum(s, 't_total', { status: 'ok', route: 'other' }), 1);
  });
});
