// `node dist/test/bench/rpc-hop.js`: unary calls/s of one RPC hop (grpc.health.v1 Check) for each
// server and client stack we could use, at a few concurrencies, all in this one process over
// loopback. Prints figures; never passes or fails on them.
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { createClient, type Transport } from '@connectrpc/connect';
import { connectNodeAdapter, createGrpcTransport } from '@connectrpc/connect-node';
import {
  HealthState, createInProcessTransport, createLogger, createPeerTransport, createRpcServer, listen,
} from '../../services/platform/index.js';
import {
  Health, HealthCheckRequestSchema, HealthCheckResponseSchema, HealthCheckResponse_ServingStatus as Status,
} from '../../proto/gen/grpc/health/v1/health_pb.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,10,50').split(',').map(Number);
const CHECK = `/${Health.typeName}/${Health.method.check.name}`;

const impl = { check: () => ({ status: Status.SERVING }) };
// The parts' own stack: the grpc-js adapter, the domain-error interceptor, Health itself.
const logger = createLogger('bench', 'silent');
const health = new HealthState([]);

function connectServer(): http2.Http2Server {
  return http2.createServer(connectNodeAdapter({ routes: (router) => router.service(Health, impl) }));
}

function grpcJsServer(): grpc.Server {
  const server = new grpc.Server();
  server.register(
    CHECK,
    (_call: grpc.ServerUnaryCall<unknown, Uint8Array>, callback: grpc.sendUnaryData<Uint8Array>) => {
      callback(null, toBinary(HealthCheckResponseSchema, create(HealthCheckResponseSchema, impl.check())));
    },
    (body: Uint8Array) => Buffer.from(body),
    (bytes: Buffer) => fromBinary(HealthCheckRequestSchema, bytes),
    'unary',
  );
  return server;
}

function listenHttp2(server: http2.Http2Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

function listenGrpcJs(server: grpc.Server): Promise<number> {
  return new Promise((resolve, reject) => server.bindAsync(
    '127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)),
  ));
}

type Call = () => Promise<unknown>;

function connectCaller(transport: Transport): Call {
  const client = createClient(Health, transport);
  return () => client.check({});
}

function grpcJsCaller(port: number): { call: Call; close(): void } {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const request = toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema));
  const call = () => new Promise((resolve, reject) => client.makeUnaryRequest(
    CHECK, () => Buffer.from(request), (b: Buffer) => fromBinary(HealthCheckResponseSchema, b), null,
    (err, res) => (err ? reject(err) : resolve(res)),
  ));
  return { call, close: () => client.close() };
}

async function closedLoop(call: Call, concurrency: number, seconds: number): Promise<number> {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) {
      await call();
      done++;
    }
  }));
  return done / ((performance.now() - started) / 1000);
}

async function measure(label: string, call: Call): Promise<void> {
  await closedLoop(call, 10, 1); // warm-up: connections, JIT
  const figures: string[] = [];
  for (const c of CONCURRENCY) figures.push(`${c} in flight ${Math.round(await closedLoop(call, c, SECONDS))}/s`);
  console.log(`${label.padEnd(62)} ${figures.join('  ')}`);
}

console.log(`rpc-hop: grpc.health.v1 Check, ${SECONDS} s per figure, node ${process.version}`);
const connectNode = connectServer();
const servers = [
  ['connect-node server', await listenHttp2(connectNode)],
  ['bare grpc-js server', await listenGrpcJs(grpcJsServer())],
  ['createRpcServer (grpc-js adapter)', await listen(createRpcServer(() => {}, health, logger, []), 0, '127.0.0.1')],
] as const;

for (const [server, port] of servers) {
  const url = `http://127.0.0.1:${port}`;
  await measure(`${server}, connect-node gRPC client`, connectCaller(createGrpcTransport({ baseUrl: url })));
  const raw = grpcJsCaller(port);
  await measure(`${server}, bare grpc-js client`, raw.call);
  raw.close();
  await measure(`${server}, createPeerTransport (grpc-js)`, connectCaller(createPeerTransport(url, 'health-needs-none')));
}
for (const calls of ['router', 'direct'] as const) {
  await measure(`in process, createInProcessTransport (${calls})`,
    connectCaller(createInProcessTransport(() => {}, health, logger, [], undefined, { calls })));
}
connectNode.close();
process.exit(0);
