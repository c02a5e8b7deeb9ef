import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Code, ConnectError, createClient, type ConnectRouter, type Transport } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Health } from '../../proto/gen/grpc/health/v1/health_pb.js';
import { ProviderNotificationsService } from '../../proto/gen/svc/payments/v1/provider_notifications_pb.js';
import { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { DomainError, fromConnectError } from '../contract/errors.js';
import { admittedCallers, newInternalToken, withCredential } from './internal-callers.js';
import { MAX_EVENT_BYTES, MAX_RPC_MESSAGE_BYTES } from '../contract/limits.js';
import { createLogger } from './logger.js';
import {
  HealthState, ServingStatus, closeRpcServer, createInProcessTransport, createPeerTransport, createRpcServer,
} from './rpc.js';
import { listen } from './standalone.js';

// The parts' RPC stack (grpc-js server, grpc-js client transport, in-process router and direct
// transports) must look to callers exactly like Connect's gRPC did: same codes, messages, metadata, deadlines.

/** A RoutingService whose PlanPayment does what the merchant id says. */
function stub(seen: { deadline?: unknown }, release: Promise<void>) {
  return (router: ConnectRouter) => router.service(RoutingService, {
    async planPayment(req, ctx) {
      switch (req.scope?.merchantId) {
        case 'domain': throw new DomainError('idempotency_in_progress', 'still deciding', { status: 503, param: 'key' });
        case 'bug': throw new TypeError('a bug');
        case 'slow':
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          seen.deadline = ctx.signal.reason;
          return {};
        case 'held': await release; return {};
        default: return { routing: { rule: 'default', decisionId: req.scope?.merchantId ?? '' } };
      }
    },
  }).service(ProviderNotificationsService, {
    async receiveNotification(req) {
      return { received: req.body.length };
    },
  });
}

const TOKEN = newInternalToken();
const CALLERS = admittedCallers(TOKEN, []);

async function setUp() {
  const lines: string[] = [];
  const logger = createLogger('rpc-test', 'error', { write: (line: string) => { lines.push(line); } });
  const seen: { deadline?: unknown } = {};
  let open!: () => void;
  const release = new Promise<void>((resolve) => { open = resolve; });
  const health = new HealthState([RoutingService.typeName]);
  const server = createRpcServer(stub(seen, release), health, logger, CALLERS);
  const url = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  const anonymous: Record<string, Transport> = {
    'connect-node gRPC client': createGrpcTransport({ baseUrl: url }),
    'createPeerTransport': createPeerTransport(url, 'not-the-token'),
    'in process, router': createInProcessTransport(stub(seen, release), health, logger, CALLERS, undefined, { calls: 'router' }),
    'in process, direct': createInProcessTransport(stub(seen, release), health, logger, CALLERS, undefined, { calls: 'direct', freezeMessages: true }),
  };
  const transports: Record<string, Transport> = {
    'connect-node gRPC client': withCredential(anonymous['connect-node gRPC client'], TOKEN),
    'createPeerTransport': createPeerTransport(url, TOKEN),
    'in process, router': withCredential(anonymous['in process, router'], TOKEN),
    'in process, direct': withCredential(anonymous['in process, direct'], TOKEN),
  };
  return { lines, seen, open, health, server, url, transports, anonymous };
}

const failureOf = (p: Promise<unknown>) => p.then(() => assert.fail('expected a failure'), (e) => ConnectError.from(e));

test('every client sees the same answers, errors, deadlines and limits', async () => {
  const s = await setUp();
  try {
    for (const [name, transport] of Object.entries(s.transports)) {
      const routing = createClient(RoutingService, transport);
      const ok = await routing.planPayment({ scope: { merchantId: 'm1' } });
      assert.equal(ok.routing?.decisionId, 'm1', name);

      const domain = await failureOf(routing.planPayment({ scope: { merchantId: 'domain' } }));
      assert.equal(domain.code, Code.Aborted, name);
      assert.equal(domain.rawMessage, 'still deciding', name);
      assert.equal(domain.metadata.get('svc-error-code'), 'idempotency_in_progress', name);
      const back = fromConnectError(domain);
      assert.deepEqual([back.code, back.status, back.options.param], ['idempotency_in_progress', 503, 'key'], name);

      s.lines.length = 0;
      const bug = await failureOf(routing.planPayment({ scope: { merchantId: 'bug' } }));
      assert.equal(fromConnectError(bug).code, 'internal_error', name);
      assert.deepEqual([bug.code, bug.rawMessage], [Code.Internal, 'internal error'], `${name}: the cause stays on the server`);
      assert.equal(s.lines.length, 1, `${name}: an unexpected failure is logged once`);

      s.seen.deadline = undefined;
      const late = await failureOf(routing.planPayment({ scope: { merchantId: 'slow' } }, { timeoutMs: 100 }));
      assert.equal(late.code, Code.DeadlineExceeded, name);
      for (let waited = 0; s.seen.deadline === undefined && waited < 2000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // The server's own timer and the client's cancellation at its deadline race: either stops the handler.
      assert.ok([Code.DeadlineExceeded, Code.Canceled].includes(ConnectError.from(s.seen.deadline).code),
        `${name}: the handler was stopped at the deadline`);

      const big = await failureOf(routing.planPayment({ scope: { merchantId: 'x'.repeat(MAX_EVENT_BYTES + 1) } }));
      assert.equal(big.code, Code.ResourceExhausted, name);
      // A provider's notification is forwarded whole: its method alone reads past MAX_EVENT_BYTES.
      const notifications = createClient(ProviderNotificationsService, transport);
      const notification = (bytes: number) => notifications.receiveNotification({ providerCode: 'stripe', body: new Uint8Array(bytes) });
      assert.equal((await notification(MAX_EVENT_BYTES + 1024)).received, MAX_EVENT_BYTES + 1024, name);
      assert.equal((await failureOf(notification(MAX_RPC_MESSAGE_BYTES))).code, Code.ResourceExhausted, name);
    }
  } finally {
    await closeRpcServer(s.server, 1000);
  }
});

test("every client gives up when its caller's signal aborts, and the handler is told", async () => {
  const s = await setUp();
  try {
    for (const [name, transport] of Object.entries(s.transports)) {
      const routing = createClient(RoutingService, transport);
      const already = new AbortController();
      already.abort();
      const early = await failureOf(routing.planPayment({ scope: { merchantId: 'm1' } }, { signal: already.signal }));
      assert.equal(early.code, Code.Canceled, `${name}: an aborted signal sends nothing`);

      s.seen.deadline = undefined;
      const stop = new AbortController();
      const pending = failureOf(routing.planPayment({ scope: { merchantId: 'slow' } }, { signal: stop.signal }));
      setTimeout(() => stop.abort(), 100);
      assert.equal((await pending).code, Code.Canceled, name);
      for (let waited = 0; s.seen.deadline === undefined && waited < 2000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(ConnectError.from(s.seen.deadline).code, Code.Canceled, `${name}: the handler was stopped`);

      // The same client still works afterwards.
      assert.equal((await routing.planPayment({ scope: { merchantId: 'm2' } })).routing?.decisionId, 'm2', name);
    }
  } finally {
    await closeRpcServer(s.server, 1000);
  }
});

test('every server refuses a call without the credential, whatever the client, and answers Health to anyone', async () => {
  const s = await setUp();
  try {
    for (const [name, transport] of Object.entries(s.anonymous)) {
      const refused = await failureOf(createClient(RoutingService, transport).planPayment({ scope: { merchantId: 'm1' } }));
      assert.equal(refused.code, Code.Unauthenticated, name);
      assert.equal(fromConnectError(refused).code, 'unauthorized', name);
      assert.equal((await createClient(Health, transport).check({ service: '' })).status, ServingStatus.SERVING, name);
    }
  } finally {
    await closeRpcServer(s.server, 1000);
  }
});

test('grpc.health.v1 answers Check, List and Watch over the socket', async () => {
  const s = await setUp();
  try {
    for (const transport of [createGrpcTransport({ baseUrl: s.url }), createPeerTransport(s.url, TOKEN)]) {
      s.health.setAll(ServingStatus.SERVING);
      const health = createClient(Health, transport);
      assert.equal((await health.check({ service: RoutingService.typeName })).status, ServingStatus.SERVING);
      assert.equal((await failureOf(health.check({ service: 'nope' }))).code, Code.NotFound);
      assert.deepEqual(Object.keys((await health.list({})).statuses).sort(), ['', RoutingService.typeName]);
      const stop = new AbortController();
      const watched: ServingStatus[] = [];
      for await (const res of health.watch({ service: '' }, { signal: stop.signal })) {
        watched.push(res.status);
        if (watched.length === 1) s.health.setAll(ServingStatus.NOT_SERVING);
        else break;
      }
      stop.abort();
      assert.deepEqual(watched, [ServingStatus.SERVING, ServingStatus.NOT_SERVING]);
    }
  } finally {
    await closeRpcServer(s.server, 1000);
  }
});

test('closing lets an in-flight call finish and refuses new ones', async () => {
  const s = await setUp();
  const routing = createClient(RoutingService, createPeerTransport(s.url, TOKEN));
  await routing.planPayment({ scope: { merchantId: 'warm' } });
  const inFlight = routing.planPayment({ scope: { merchantId: 'held' } });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const closed = closeRpcServer(s.server, 5000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  s.open();
  await inFlight;
  await closed;
  const refused = await failureOf(routing.planPayment({ scope: { merchantId: 'late' } }, { timeoutMs: 2000 }));
  assert.equal(fromConnectError(refused).code, 'service_unavailable');
});
