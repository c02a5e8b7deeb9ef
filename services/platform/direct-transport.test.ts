import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type ConnectRouter } from '@connectrpc/connect';
import { RoutingService, PlanPaymentRequestSchema } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { LedgerService } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { DomainError, fromConnectError } from '../contract/errors.js';
import { MAX_EVENT_BYTES } from '../contract/limits.js';
import { admittedCallers, newInternalToken, sha256, withCredential } from './internal-callers.js';
import { createLogger } from './logger.js';
import { Metrics } from './metrics.js';
import { HealthState, createInProcessTransport, type InProcessOptions } from './rpc.js';

// The direct transport (IN_PROCESS_CALLS=direct) must answer every caller as the router transport
// (IN_PROCESS_CALLS=router), which encodes as gRPC does, answers it: the same refusals, codes,
// messages, metadata, deadlines and metrics; only the message objects are handed over as they are.

const TOKEN = newInternalToken();
/** An internal caller entitled to one project only (INTERNAL_CALLERS). */
const REPORTING = newInternalToken();
const CALLERS = admittedCallers(TOKEN, [{ name: 'reporting', tokenSha256: sha256(REPORTING), projects: ['prj_reporting'] }]);

interface Seen {
  request?: unknown;
  header?: Headers;
  stopped?: unknown;
}

/** A RoutingService whose PlanPayment does what the merchant id says. */
function stub(seen: Seen) {
  return (router: ConnectRouter) => router.service(RoutingService, {
    async planPayment(req, ctx) {
      seen.request = req;
      seen.header = ctx.requestHeader;
      switch (req.scope?.merchantId) {
        case 'domain': throw new DomainError('validation_error', 'amount is too large', { param: 'amount' });
        case 'bug': throw new TypeError('relation "payments.secret_table" does not exist');
        case 'mutates': req.providerCode = 'another'; return {};
        case 'deaf':
          // Ignores its signal: the caller must not wait for it past the deadline.
          ctx.signal.addEventListener('abort', () => { seen.stopped = ctx.signal.reason; });
          await new Promise((resolve) => setTimeout(resolve, 1500));
          return {};
        default: return { routing: { rule: 'default', decisionId: req.scope?.merchantId ?? '' } };
      }
    },
  });
}

function setUp(how: InProcessOptions) {
  const lines: string[] = [];
  const logger = createLogger('direct-test', 'error', { write: (line: string) => { lines.push(line); } });
  const seen: Seen = {};
  const metrics = new Metrics({ defaults: false });
  const anonymous = createInProcessTransport(stub(seen), new HealthState([RoutingService.typeName]), logger, CALLERS, metrics, how);
  const as = (token: string) => createClient(RoutingService, withCredential(anonymous, token));
  return { lines, seen, metrics, anonymous, routing: as(TOKEN), reporting: as(REPORTING) };
}

const MODES: Record<string, InProcessOptions> = { router: { calls: 'router' }, direct: { calls: 'direct', freezeMessages: true } };

const failureOf = (p: Promise<unknown>) => p.then(() => assert.fail('expected a failure'), (e: unknown) => e as ConnectError);

/** What a caller can see of a failure. */
function seenByCaller(err: ConnectError) {
  return {
    code: Code[err.code],
    message: err.rawMessage,
    metadata: Object.fromEntries([...err.metadata].filter(([k]) => k.startsWith('svc-'))),
    cause: err.cause,
  };
}

/** The same failure through each mode: what the caller sees of it. */
async function inBothModes(call: (s: ReturnType<typeof setUp>) => Promise<unknown>) {
  const out: Record<string, ReturnType<typeof seenByCaller>> = {};
  for (const [mode, how] of Object.entries(MODES)) out[mode] = seenByCaller(await failureOf(call(setUp(how))));
  assert.deepEqual(out.direct, out.router, 'the direct transport fails as the router transport does');
  return out.direct!;
}

test('a call without the internal credential, or outside the caller\'s projects, is refused as over gRPC', async () => {
  const none = await inBothModes((s) => createClient(RoutingService, s.anonymous).planPayment({ scope: { merchantId: 'm' } }));
  assert.equal(none.code, 'Unauthenticated');
  assert.equal(none.metadata['svc-error-code'], 'unauthorized');
  const wrong = await inBothModes((s) => createClient(RoutingService, withCredential(s.anonymous, `${TOKEN}x`))
    .planPayment({ scope: { merchantId: 'm' } }));
  assert.equal(wrong.code, 'Unauthenticated');
  const elsewhere = await inBothModes((s) => s.reporting.planPayment({ scope: { merchantId: 'm', projectId: 'prj_other' } }));
  assert.equal(elsewhere.code, 'PermissionDenied');
  assert.equal(elsewhere.metadata['svc-error-code'], 'forbidden');

  const s = setUp(MODES.direct!);
  const own = await s.reporting.planPayment({ scope: { merchantId: 'mine', projectId: 'prj_reporting' } });
  assert.equal(own.routing?.decisionId, 'mine', 'the caller acts for its own project');
});

test('a domain error keeps its code, message and metadata; any other failure is an opaque internal error, logged once', async () => {
  const domain = await inBothModes((s) => s.routing.planPayment({ scope: { merchantId: 'domain' } }));
  assert.deepEqual(domain, {
    code: 'InvalidArgument', message: 'amount is too large', cause: undefined,
    metadata: { 'svc-error-code': 'validation_error', 'svc-error-param': 'amount' },
  });
  const back = fromConnectError(await failureOf(setUp(MODES.direct!).routing.planPayment({ scope: { merchantId: 'domain' } })));
  assert.deepEqual([back.code, back.options.param], ['validation_error', 'amount']);

  const bug = await inBothModes((s) => s.routing.planPayment({ scope: { merchantId: 'bug' } }));
  assert.deepEqual(bug, { code: 'Internal', message: 'internal error', metadata: {}, cause: undefined });
  const s = setUp(MODES.direct!);
  await failureOf(s.routing.planPayment({ scope: { merchantId: 'bug' } }));
  assert.equal(s.lines.length, 1, 'the part logs the cause, which its caller never sees');
  assert.match(s.lines[0]!, /secret_table/);
});

test('past its deadline a call fails with DeadlineExceeded at once, and the handler\'s signal says so', async () => {
  for (const [mode, how] of Object.entries(MODES)) {
    const s = setUp(how);
    const started = performance.now();
    const late = await failureOf(s.routing.planPayment({ scope: { merchantId: 'deaf' } }, { timeoutMs: 100 }));
    assert.equal(late.code, Code.DeadlineExceeded, mode);
    assert.ok(performance.now() - started < 1000, `${mode}: the caller did not wait for the handler (${performance.now() - started} ms)`);
    for (let waited = 0; s.seen.stopped === undefined && waited < 2000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The server's own timer and the client's cancellation race in the router: either stops the handler.
    assert.ok([Code.DeadlineExceeded, Code.Canceled].includes(ConnectError.from(s.seen.stopped).code), `${mode}: the handler was told`);
  }
  const s = setUp(MODES.direct!);
  await failureOf(s.routing.planPayment({ scope: { merchantId: 'deaf' } }, { timeoutMs: 100 }));
  assert.equal(ConnectError.from(s.seen.stopped).code, Code.DeadlineExceeded, 'directly, the deadline itself stops the handler');

  const cancelled = await inBothModes((s) => {
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    return s.routing.planPayment({ scope: { merchantId: 'deaf' } }, { signal: caller.signal });
  });
  assert.equal(cancelled.code, 'Canceled');
});

test('the handler gets the caller\'s message itself and its metadata (traceparent, x-request-id); nothing is encoded', async () => {
  const s = setUp(MODES.direct!);
  const request = create(PlanPaymentRequestSchema, { scope: { merchantId: 'm1' }, providerCode: 'stripe' });
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const res = await s.routing.planPayment(request, { headers: { traceparent, 'x-request-id': 'req_1' } });
  assert.equal(s.seen.request, request, 'the very object, not a decoded copy');
  assert.equal(s.seen.header?.get('traceparent'), traceparent);
  assert.equal(s.seen.header?.get('x-request-id'), 'req_1');
  assert.equal(res.routing?.decisionId, 'm1');
  assert.ok(Object.isFrozen(res) && Object.isFrozen(res.routing), 'the test stacks freeze what is shared');

  const fields = await s.routing.planPayment({ scope: { merchantId: 'm2' } });
  assert.equal(fields.routing?.decisionId, 'm2', 'a caller may pass the fields of a message, as to any transport');
});

test('a handler that mutates the message it shares with its caller fails where messages are frozen', async () => {
  const s = setUp(MODES.direct!);
  const request = create(PlanPaymentRequestSchema, { scope: { merchantId: 'mutates' }, providerCode: 'stripe' });
  const err = await failureOf(s.routing.planPayment(request));
  assert.equal(err.code, Code.Internal);
  assert.equal(request.providerCode, 'stripe', 'the caller\'s message is as it sent it');
  assert.match(s.lines.join('\n'), /read.only|not extensible|Cannot assign/);
});

test('a request larger than the part reads is refused before any check; one just under it is served', async () => {
  for (const [mode, how] of Object.entries(MODES)) {
    const s = setUp(how);
    const big = await failureOf(createClient(RoutingService, s.anonymous).planPayment({ scope: { merchantId: 'x'.repeat(MAX_EVENT_BYTES + 1) } }));
    assert.equal(big.code, Code.ResourceExhausted, mode);
    // Its bound (three bytes a character) is over the limit, its encoding under it.
    const merchantId = 'y'.repeat(MAX_EVENT_BYTES - 100);
    assert.equal((await s.routing.planPayment({ scope: { merchantId } })).routing?.decisionId, merchantId, mode);
  }
});

test('a method the part does not serve is Unimplemented, and every call is counted as over gRPC', async () => {
  const codes: Record<string, string> = {};
  for (const [mode, how] of Object.entries(MODES)) {
    const s = setUp(how);
    const ledger = createClient(LedgerService, withCredential(s.anonymous, TOKEN));
    const missing = await failureOf(ledger.listTransactions({}));
    codes[mode] = Code[missing.code];
    await s.routing.planPayment({ scope: { merchantId: 'counted' } });
    await failureOf(createClient(RoutingService, s.anonymous).planPayment({ scope: { merchantId: 'm' } }));
    const text = await s.metrics.text();
    for (const code of ['OK', 'UNAUTHENTICATED']) {
      assert.match(text, new RegExp(`svc_grpc_server_calls_total\\{service="svc.routing.v1.RoutingService",method="PlanPayment",code="${code}"\\} 1`), `${mode}: ${code}`);
    }
  }
  assert.deepEqual(codes, { router: 'Unimplemented', direct: 'Unimplemented' });
});
