// OTLP transports (OTEL_EXPORTER_OTLP_PROTOCOL): besides the default HTTP/JSON (test/tracing.test.ts),
// a process exports its spans as protobuf over HTTP and over gRPC, each to a receiver this test runs
// on loopback. The receivers decode no protobuf: they check the request a collector would take (path,
// content type, gRPC framing) and find the span's name, its service and its trace id's 16 bytes in it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { createServer as createH2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { test } from 'node:test';
import { loadConfig } from '../services/platform/config.js';
import { projectPath } from '../services/platform/paths.js';

interface Received { path: string; contentType: string; body: Buffer }

const gunzipIf = (encoding: string | undefined, body: Buffer) => (encoding === 'gzip' ? gunzipSync(body) : body);

/** An OTLP/HTTP receiver keeping each request's raw body. */
async function httpReceiver() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '', contentType: String(req.headers['content-type']),
        body: gunzipIf(req.headers['content-encoding'] as string | undefined, Buffer.concat(chunks)),
      });
      // An empty ExportTraceServiceResponse.
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => server.close() };
}

/** An OTLP/gRPC receiver (h2c): TraceService/Export answered OK with an empty message. */
async function grpcReceiver() {
  const received: Received[] = [];
  const server = createH2Server();
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const framed = Buffer.concat(chunks);
      // gRPC's length-prefixed message: a compressed flag, four bytes of length, the message.
      const message = framed.subarray(5, 5 + framed.readUInt32BE(1));
      received.push({
        path: String(headers[':path']), contentType: String(headers['content-type']),
        body: framed[0] === 1 ? gunzipIf(headers['grpc-encoding'] as string | undefined, message) : message,
      });
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(Buffer.alloc(5));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => server.close() };
}

/** A process that starts tracing as a part does, records one span, flushes, and prints its trace id. */
async function traceOneSpan(env: Record<string, string>): Promise<string> {
  const dist = (path: string) => JSON.stringify(pathToFileURL(projectPath('dist', path)).href);
  const script = `
    const { inSpan, SpanKind, startTracing } = await import(${dist('services/platform/tracing.js')});
    const { loadConfig } = await import(${dist('services/platform/config.js')});
    const tracing = await startTracing('svc-protocol-check', loadConfig(process.env));
    const traceId = await inSpan('protocol check', SpanKind.INTERNAL, {}, async (span) => span.spanContext().traceId);
    await tracing.shutdown();
    console.log(traceId);`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return stdout.trim();
}

function assertSpanIn(body: Buffer, traceId: string): void {
  assert.match(traceId, /^[0-9a-f]{32}$/);
  assert.ok(body.includes(Buffer.from(traceId, 'hex')), 'the trace id, as protobuf bytes');
  assert.ok(body.includes(Buffer.from('protocol check')), 'the span name');
  assert.ok(body.includes(Buffer.from('svc-protocol-check')), 'the service name');
  assert.ok(!body.includes(Buffer.from(`"traceId"`)), 'not JSON');
}

test('http/protobuf: spans go to <endpoint>/v1/traces as application/x-protobuf', async () => {
  const receiver = await httpReceiver();
  try {
    const traceId = await traceOneSpan({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' });
    assert.equal(receiver.received.length, 1);
    const [got] = receiver.received;
    assert.deepEqual([got.path, got.contentType], ['/v1/traces', 'application/x-protobuf']);
    assertSpanIn(got.body, traceId);
  } finally {
    receiver.close();
  }
});

test('grpc: spans go to the endpoint\'s TraceService/Export; the traces-only variable wins over the general one', async () => {
  const receiver = await grpcReceiver();
  try {
    const traceId = await traceOneSpan({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
    });
    assert.equal(receiver.received.length, 1);
    const [got] = receiver.received;
    assert.deepEqual([got.path, got.contentType], ['/opentelemetry.proto.collector.trace.v1.TraceService/Export', 'application/grpc']);
    assertSpanIn(got.body, traceId);
  } finally {
    receiver.close();
  }
});

test('the protocol: http/json unless set; anything else refuses to start, naming the variable and the choices', () => {
  assert.equal(loadConfig({}).otlpProtocol, 'http/json');
  assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }),
    /OTEL_EXPORTER_OTLP_PROTOCOL.*must be one of http\/json, http\/protobuf, grpc, got "thrift"/);
  assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http' }), /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/);
});
