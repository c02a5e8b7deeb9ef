// `node dist/test/bench/rpc-hop.js`: unary calls/s of one RPC hop (grpc.health.v1 Check) for each
// server and client stack we could use, at a few concurrencies, all in this one process over
// loopback, with the process's CPU time per call (both ends of the hop: the steadier figure on a
// loaded machine). Then grpc-js channel and server options, bare grpc-js on both ends, in
// interleaved rounds (BENCH_OPTION_ROUNDS, 3). Prints figures; never passes or fails on them.
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { createClient, type Transport } from '@connectrpc/connect';
import { connectNodeAdapter, createGrpcTransport } from '@connectrpc/connect-node';
import { createLogger } from '../../services/platform/logger.js';
import {
  HealthState, createInProcessTransport, createPeerTransport, createRpcServer,
} from '../../services/platform/rpc.js';
import { listen } from '../../services/platform/standalone.js';
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

function grpcJsServer(options: grpc.ChannelOptions = {}): grpc.Server {
  const server = new grpc.Server(options);
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

function grpcJsCaller(port: number, options: grpc.ChannelOptions = {}): { call: Call; close(): void } {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), options);
  const request = toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema));
  const call = () => new Promise((resolve, reject) => client.makeUnaryRequest(
    CHECK, () => Buffer.from(request), (b: Buffer) => fromBinary(HealthCheckResponseSchema, b), null,
    (err, res) => (err ? reject(err) : resolve(res)),
  ));
  return { call, close: () => client.close() };
}

/** Calls per second and this process's CPU microseconds (user + system) per call. */
async function closedLoop(call: Call, concurrency: number, seconds: number): Promise<{ rate: number; cpuUs: number }> {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) {
      await call();
      done++;
    }
  }));
  const used = process.cpuUsage(cpu);
  return { rate: done / ((performance.now() - started) / 1000), cpuUs: (used.user + used.system) / done };
}

const figure = (r: { rate: number; cpuUs: number }) => `${Math.round(r.rate)}/s ${Math.round(r.cpuUs)} µs`;

async function measure(label: string, call: Call): Promise<void> {
  await closedLoop(call, 10, 1); // warm-up: connections, JIT
  const figures: string[] = [];
  for (const c of CONCURRENCY) figures.push(`${c} in flight ${figure(await closedLoop(call, c, SECONDS))}`);
  console.log(`${label.padEnd(62)} ${figures.join('  ')}`);
}

/** grpc-js options tried on both ends of a bare grpc-js hop (docs/performance.md). */
const OPTION_SETS: Array<[string, grpc.ChannelOptions]> = [
  ['defaults', {}],
  ['channelz off', { 'grpc.enable_channelz': 0 }],
  ['retries off', { 'grpc.enable_retries': 0 }],
  ['channelz and retries off', { 'grpc.enable_channelz': 0, 'grpc.enable_retries': 0 }],
  ['local subchannel pool', { 'grpc.use_local_subchannel_pool': 1 }],
  ['max_concurrent_streams 1000', { 'grpc.max_concurrent_streams': 1000 }],
  ['keepalive 10 s', { 'grpc.keepalive_time_ms': 10_000, 'grpc.keepalive_timeout_ms': 5_000 }],
];

async function optionRounds(rounds: number, concurrency: number): Promise<void> {
  if (rounds <= 0) return;
  const sides = await Promise.all(OPTION_SETS.map(async ([name, options]) => {
    const port = await listenGrpcJs(grpcJsServer(options));
    return { name, ...grpcJsCaller(port, options), rates: [] as number[], cpu: [] as number[] };
  }));
  for (const side of sides) await closedLoop(side.call, 10, 1);
  for (let round = 0; round < rounds; round++) {
    // Alternate the order each round so no set always runs first or last.
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const r = await closedLoop(side.call, concurrency, SECONDS);
      side.rates.push(r.rate);
      side.cpu.push(r.cpuUs);
    }
  }
  console.log(`grpc-js options, bare grpc-js on both ends, ${concurrency} in flight, ${rounds} interleaved rounds`
    + ' (per round: µs CPU per call):');
  for (const side of sides) {
    const mean = side.cpu.reduce((a, b) => a + b, 0) / side.cpu.length;
    console.log(`  ${side.name.padEnd(30)} mean ${mean.toFixed(1)} µs [${side.cpu.map((c) => c.toFixed(0)).join(', ')}]`
      + `  ${Math.round(side.rates.reduce((a, b) => a + b, 0) / side.rates.length)}/s`);
    side.close();
  }
}

console.log(`rpc-hop: grpc.health.v1 Check, ${SECONDS} s per figure (calls/s, µs CPU per call), node ${process.version}`);
const ROUNDS = Number(process.env.BENCH_OPTION_ROUNDS ?? 3);
if (process.argv.includes('--options-only')) {
  await optionRounds(ROUNDS, 10);
  process.exit(0);
}
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
await optionRounds(ROUNDS, 10);
connectNode.close();
process.exit(0);
