// OpenTelemetry traces: a stack exporting to an OTLP/HTTP receiver this test runs on
// loopback; one payment with a webhook endpoint is one trace from the gateway request through the
// parts' gRPC calls, the ledger consumer and the webhook delivery attempt.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { context } from '@opentelemetry/api';
import { createClient } from '@connectrpc/connect';
import { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import { admittedCallers, newInternalToken } from '../services/platform/internal-callers.js';
import { createLogger } from '../services/platform/logger.js';
import { projectPath } from '../services/platform/paths.js';
import { HealthState, closeRpcServer, createPeerTransport, createRpcServer } from '../services/platform/rpc.js';
import { listen } from '../services/platform/standalone.js';
import { SpanKind, inSpan, withRequestId } from '../services/platform/tracing.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { captureLogs } from './helpers/log-sink.js';
import { startSplitStack, type SplitStack } from './helpers/split-stack.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { serveLoopback } from './helpers/stand-in-server.js';
import { eventually, startReceiver, type Receiver } from './webhooks-support.js';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string;
}

type KeyValue = { key: string; value: Record<string, unknown> };
const valuesOf = (kvs: KeyValue[] = []) => Object.fromEntries(kvs.map((kv) => [kv.key, Object.values(kv.value)[0]]));

/** An OTLP/HTTP JSON collector: POST /v1/traces, keeping every span it is sent. */
async function startCollector() {
  const spans: ReceivedSpan[] = [];
  const paths: string[] = [];
  const server = await serveLoopback((req, res, text) => {
    paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
    const body = JSON.parse(text);
    for (const rs of body.resourceSpans ?? []) {
      const service = String(valuesOf(rs.resource?.attributes)['service.name']);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) spans.push({ ...s, attributes: valuesOf(s.attributes), service });
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { url: server.baseUrl, spans, paths, close: server.close };
}

const SPAN_KIND = { server: 2, client: 3, consumer: 5 };

/** Every log line of the request, its first and last among them, carries its request_id beside the ids of its span. */
function assertRequestLogged(output: string[], requestId: string, root: ReceivedSpan) {
  const raw = output.flatMap((chunk) => chunk.split('\n')).filter((l) => l.startsWith('{'));
  const lines = raw.map((l) => JSON.parse(l));
  assert.ok(lines.every((l) => l.reqId === undefined), 'the request id is logged as request_id, not as reqId');
  const requestLines = lines.filter((l) => l.request_id === requestId);
  const written = raw.filter((l) => l.includes(requestId));
  assert.ok(written.every((l) => l.split('"trace_id"').length === 2 && l.split('"request_id"').length === 2), 'each id once a line');
  assert.deepEqual(requestLines.map((l) => l.msg).filter((m) => /^(incoming request|request completed)$/.test(m)),
    ['incoming request', 'request completed']);
  for (const line of requestLines) {
    assert.equal(line.trace_id, root.traceId, `"${line.msg}" carries the trace's id`);
    // The gateway's lines name its request span; a part's, the span of the call it served.
    if (/^(incoming request|request completed)$/.test(line.msg)) assert.equal(line.span_id, root.spanId);
    else assert.match(line.span_id, /^[0-9a-f]{16}$/);
  }
}

describe('traces', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let stack: TestStack;
  let receiver: Receiver;
  const { stream: sink, lines: logs } = captureLogs();

  before(async () => {
    collector = await startCollector();
    stack = await startTestStack({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
      logger: createLogger('test', 'debug', sink),
    });
    receiver = await startReceiver(200);
  });
  after(async () => {
    await receiver?.close();
    await stack?.close();
    await collector?.close();
  });

  test('one payment is one trace: gateway, payments, routing-risk, the ledger consumer and the webhook delivery', async () => {
    const m = await stack.newMerchantKey('test');
    const created = await stack.manage('POST', `/projects/${m.projectId}/webhook-endpoints`, {
      mode: 'test', url: receiver.url, events: ['payment.successful'],
    });
    assert.equal(created.status, 201);
    const paid = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: m.secret, body: { amount: 1200, currency: 'EUR', payment_method: 'card' },
    });
    assert.equal(paid.status, 201);
    const [delivered] = await receiver.waitFor(1);
    assert.equal(JSON.parse(delivered.body).data.object.id, paid.body.id);
    assert.equal(delivered.headers.traceparent, undefined, 'no trace header reaches a merchant');
    assert.deepEqual(Object.keys(JSON.parse(delivered.body)), ['id', 'type', 'mode', 'created_at', 'data'], 'nor a trace field');

    const root = await eventually(async () => collector.spans.find(
      (s) => s.name === 'POST /v1/payments' && s.attributes['svc.request_id'] === paid.headers.get('x-request-id'),
    ), 15_000, 'the gateway span');
    assert.equal(root.kind, SPAN_KIND.server);
    assert.equal(root.parentSpanId || undefined, undefined, 'a request without traceparent starts a trace');
    assert.equal(root.attributes['http.response.status_code'], 201);
    assert.equal(root.attributes['http.route'], '/v1/payments');
    assert.equal(root.service, 'svc');
    assert.match(collector.paths[0], /^POST \/v1\/traces application\/json/);

    const inTrace = (pick: (s: ReceivedSpan) => boolean) => collector.spans.filter((s) => s.traceId === root.traceId && pick(s));
    const spans = await eventually(async () => {
      const found = {
        payments: inTrace((s) => s.kind === SPAN_KIND.server && s.name === 'svc.payments.v1.PaymentsService/CreatePayment'),
        paymentsClient: inTrace((s) => s.kind === SPAN_KIND.client && s.name === 'svc.payments.v1.PaymentsService/CreatePayment'),
        routingRisk: inTrace((s) => s.kind === SPAN_KIND.server && /^svc\.(routing|risk)\.v1\./.test(s.name)),
        ledger: inTrace((s) => s.kind === SPAN_KIND.consumer && s.name === 'ledger process'),
        webhooksConsumer: inTrace((s) => s.kind === SPAN_KIND.consumer && s.name === 'webhooks process'),
        delivery: inTrace((s) => s.name === 'webhook delivery attempt'),
        provider: inTrace((s) => s.kind === SPAN_KIND.client && s.name === 'provider authorize'),
        postgres: inTrace((s) => s.kind === SPAN_KIND.client && s.attributes['db.system.name'] === 'postgresql'),
      };
      return Object.values(found).every((list) => list.length > 0) ? found : undefined;
    }, 15_000, 'spans of every hop under the gateway\'s trace id');

    // Each hop hangs off the one before it: gRPC server under its client, consumers under the outbox's writer.
    const byId = new Map(collector.spans.map((s) => [s.spanId, s]));
    assert.equal(byId.get(spans.paymentsClient[0].parentSpanId!)?.spanId, root.spanId);
    assert.ok(spans.payments.some((s) => s.parentSpanId === spans.paymentsClient[0].spanId));
    assert.equal(spans.provider[0].attributes['svc.outcome'], 'success');
    assert.ok(spans.postgres.some((s) => s.attributes['db.namespace'] === 'payments'), 'payments\' statements are spans');
    assert.ok(spans.postgres.every((s) => !String(s.attributes['db.query.text']).includes(paid.body.id)), 'no values in statement spans');
    const [attempt] = spans.delivery;
    assert.equal(attempt.attributes['svc.attempt'], 1);
    assert.equal(byId.get(attempt.parentSpanId!)?.name, 'webhooks process');

    // A manual resend, made later for another request, is still an attempt of the payment's trace.
    const deliveryId = delivered.headers['svc-delivery-id'];
    const resent = await stack.manage('POST', `/projects/${m.projectId}/webhook-deliveries/${deliveryId}/resend?mode=test`);
    assert.equal(resent.status, 200);
    const manual = await eventually(async () => collector.spans.find(
      (s) => s.name === 'webhook delivery attempt' && s.attributes['svc.manual'] === true,
    ), 15_000, 'the resend\'s attempt span');
    assert.equal(manual.traceId, root.traceId);
    assert.equal(manual.parentSpanId, attempt.parentSpanId);
    assert.equal(manual.attributes['svc.attempt'], 2);

    assertRequestLogged(logs, paid.headers.get('x-request-id')!, root);
  });

  test('the statements of a transaction are spans of the request\'s trace, from BEGIN to COMMIT', async () => {
    const m = await stack.newMerchantKey('test');
    const paid = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: m.secret, body: { amount: 800, currency: 'EUR', payment_method: 'card' },
    });
    assert.equal(paid.status, 201);
    const refunded = await request(stack.baseUrl, 'POST', `/v1/payments/${paid.body.id}/refund`, { key: m.secret, body: { amount: 300 } });
    assert.equal(refunded.status, 201);
    const root = await eventually(async () => collector.spans.find(
      (s) => s.kind === SPAN_KIND.server && s.attributes['svc.request_id'] === refunded.headers.get('x-request-id'),
    ), 15_000, 'the refund request\'s span');
    // The refund reserves its amount in one transaction and settles the outcome in another.
    const verbs = await eventually(async () => {
      const names = collector.spans.filter((s) => s.traceId === root.traceId && s.attributes['db.namespace'] === 'payments')
        .map((s) => s.name.split(' ')[0]);
      return names.filter((n) => n === 'BEGIN').length >= 2 && names.filter((n) => n === 'COMMIT').length >= 2 ? names : undefined;
    }, 15_000, 'BEGIN and COMMIT spans of the refund\'s transactions');
    assert.ok(verbs.includes('SELECT'), 'the transaction\'s reads are spans');
    assertRequestLogged(logs, refunded.headers.get('x-request-id')!, root);
  });

  test('a part\'s log lines of a gRPC call carry the request_id and the trace_id of the request it serves', async () => {
    const { stream, lines } = captureLogs();
    const partLogger = createLogger('routing-risk', 'info', stream);
    const token = newInternalToken();
    const server = createRpcServer((router) => router.service(RoutingService, {
      planPayment() {
        partLogger.info('planning');
        return {};
      },
    }), new HealthState([RoutingService.typeName]), partLogger, admittedCallers(token, []));
    const client = createClient(RoutingService, createPeerTransport(`http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`, token));
    try {
      // As the gateway calls a part while serving a request (gateway/http/tracing.ts).
      const caller = await inSpan('GET /v1/test', SpanKind.SERVER, {}, async (span) => {
        await context.with(withRequestId(context.active(), 'req_logged'), () => client.planPayment({}));
        return span.spanContext();
      });
      const [line] = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'planning');
      assert.equal(line.request_id, 'req_logged');
      assert.equal(line.trace_id, caller.traceId);
      const served = await eventually(async () => collector.spans.find(
        (s) => s.traceId === caller.traceId && s.kind === SPAN_KIND.server && s.name === 'svc.routing.v1.RoutingService/PlanPayment',
      ), 15_000, 'the part\'s server span');
      assert.equal(line.span_id, served.spanId, 'the line names the span of the call it was written in');
    } finally {
      await closeRpcServer(server, 1000);
    }
  });

  test('a request the router refuses before any hook runs is a span too, ended with its response', async () => {
    const refused = await request(stack.baseUrl, 'GET', '/v1/payments/%E0%A4%A');
    assert.equal(refused.status, 400);
    const span = await eventually(async () => collector.spans.find(
      (s) => s.attributes['svc.request_id'] === refused.headers.get('x-request-id'),
    ), 15_000, 'the refused request\'s span');
    assert.equal(span.name, 'GET');
    assert.equal(span.attributes['http.response.status_code'], 400);
    const lines = logs.map((l) => JSON.parse(l)).filter((l) => l.request_id === refused.headers.get('x-request-id'));
    assert.equal(lines[0].msg, 'incoming request');
    assert.ok(lines.every((l) => l.trace_id === span.traceId && l.span_id === span.spanId));
  });

  test('a caller\'s traceparent is continued by the gateway', async () => {
    const m = await stack.newMerchantKey('test');
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await request(stack.baseUrl, 'GET', '/v1/payments?limit=1', {
      key: m.secret, headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    assert.equal(res.status, 200);
    const span = await eventually(async () => collector.spans.find(
      (s) => s.attributes['svc.request_id'] === res.headers.get('x-request-id'),
    ), 15_000, 'the gateway span');
    assert.equal(span.traceId, traceId);
    assert.equal(span.parentSpanId, '00f067aa0ba902b7');
    assert.equal(span.name, 'GET /v1/payments');
  });
});

/**
 * The OpenTelemetry packages a process imports while loading the gateway and every part and
 * starting tracing with `otlpEndpoint`.
 */
async function openTelemetryImports(otlpEndpoint: string): Promise<string[]> {
  const dist = (path: string) => pathToFileURL(projectPath('dist', path)).href;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(dist('test/helpers/opentelemetry-imports.js'))});`;
  const script = `
    const shared = await import(${JSON.stringify(dist('services/platform/tracing.js'))});
    await import(${JSON.stringify(dist('all-in-one/stack.js'))});
    await import(${JSON.stringify(dist('gateway/app.js'))});
    const tracing = await shared.startTracing('svc', { otlpEndpoint: process.argv[1] || undefined, otlpProtocol: 'http/json' });
    await tracing?.shutdown();`;
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script, otlpEndpoint,
  ]);
  return [...new Set(stdout.split('\n').filter((l) => l.startsWith('imported ')).map((l) => l.slice('imported '.length)))].sort();
}

test('without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry module but the API is loaded', async () => {
  assert.deepEqual(await openTelemetryImports(''), ['@opentelemetry/api']);
  // The same process with an endpoint: the SDK and the exporter are imported, and seen imported.
  const traced = await openTelemetryImports('http://127.0.0.1:9'); // nothing is traced, so nothing is sent
  for (const name of ['@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http']) assert.ok(traced.includes(name), name);
});

const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();

describe('traces across separate processes (real gRPC, JetStream headers)', { skip: withoutNats }, () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let split: SplitStack;
  let receiver: Receiver;

  before(async () => {
    collector = await startCollector();
    split = await startSplitStack(natsUrl!, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, LOG_LEVEL: 'info' });
    receiver = await startReceiver(200);
  });
  after(async () => {
    await receiver?.close();
    await split?.close();
    await collector?.close();
  });

  test('each part reports its own spans under the payment\'s one trace id', async () => {
    const manage = (method: string, path: string, body?: unknown) =>
      request(split.baseUrl, method, `/manage/v1${path}`, { key: split.operatorToken, body });
    const merchant = await manage('POST', '/merchants', { name: 'Traced merchant' });
    const projectId = merchant.body.project.id;
    const key = await manage('POST', `/projects/${projectId}/keys`, { mode: 'test', name: 'k' });
    const endpoint = await manage('POST', `/projects/${projectId}/webhook-endpoints`, {
      mode: 'test', url: receiver.url, events: ['payment.successful'],
    });
    assert.equal(endpoint.status, 201);
    const paid = await request(split.baseUrl, 'POST', '/v1/payments', {
      key: key.body.secret, body: { amount: 900, currency: 'EUR', payment_method: 'card' },
    });
    assert.equal(paid.status, 201);
    await receiver.waitFor(1);

    const root = await eventually(async () => collector.spans.find(
      (s) => s.name === 'POST /v1/payments' && s.attributes['svc.request_id'] === paid.headers.get('x-request-id'),
    ), 15_000, 'the gateway span');
    assert.equal(root.service, 'gateway');
    assertRequestLogged([split.parts.find((p) => p.name === 'gateway')!.output()], paid.headers.get('x-request-id')!, root);
    const services = await eventually(async () => {
      const inTrace = collector.spans.filter((s) => s.traceId === root.traceId);
      const has = (service: string, pick: (s: ReceivedSpan) => boolean) => inTrace.some((s) => s.service === service && pick(s));
      const found = {
        payments: has('payments', (s) => s.kind === SPAN_KIND.server && s.name === 'svc.payments.v1.PaymentsService/CreatePayment'),
        routingRisk: has('routing-risk', (s) => s.kind === SPAN_KIND.server),
        ledger: has('ledger', (s) => s.name === 'ledger process'),
        delivery: has('webhooks', (s) => s.name === 'webhook delivery attempt'),
      };
      return Object.values(found).every(Boolean) ? found : undefined;
    }, 20_000, 'spans of payments, routing-risk, ledger and webhooks under the gateway\'s trace id');
    assert.deepEqual(services, { payments: true, routingRisk: true, ledger: true, delivery: true });
  });
});
