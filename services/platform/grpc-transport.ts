import * as grpc from '@grpc/grpc-js';
import { fromBinary, toBinary, type DescMethod, type Message } from '@bufbuild/protobuf';
import {
  Code, ConnectError, createContextValues, type StreamResponse, type Transport, type UnaryResponse,
} from '@connectrpc/connect';
import { getAbortSignalReason, runStreamingCall, runUnaryCall } from '@connectrpc/connect/protocol';
import { fromStatus, toHeaders, toMetadata } from './grpc-metadata.js';

// A Connect Transport whose wire is a @grpc/grpc-js Client: `createClient(Service, transport)` call
// sites stay as they are, and a failure comes out as the ConnectError a Connect gRPC client would
// raise (same code, rawMessage and metadata), which is what services/contract/errors.ts reads.
// runUnaryCall/runStreamingCall are Connect's own: they apply the deadline and the caller's signal.

const OPTIONS: grpc.ChannelOptions = {
  // Connect reads answers of any size; so do we (a request is what the server limits).
  'grpc.max_receive_message_length': -1,
  // A peer part that restarts is back within a second or two; grpc-js would otherwise back off up
  // to two minutes between attempts and refuse calls meanwhile.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1_000,
};

type HeaderInit = ConstructorParameters<typeof Headers>[0];

function codec(method: DescMethod) {
  return {
    path: `/${method.parent.typeName}/${method.name}`,
    serialize: (message: Message) => {
      const bytes = toBinary(method.input, message);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    deserialize: (bytes: Buffer) => fromBinary(method.output, bytes),
  };
}

/** The deadline travels as grpc-timeout, so the server's handler sees it too. */
function callOptions(timeoutMs: number | undefined): grpc.CallOptions {
  return timeoutMs === undefined ? {} : { deadline: Date.now() + timeoutMs };
}

/** Why a call ended early: the caller's abort reason wins over the CANCELLED status it caused. */
function failure(signal: AbortSignal, status: Partial<grpc.StatusObject>, header: Headers): ConnectError {
  return signal.aborted ? ConnectError.from(getAbortSignalReason(signal), Code.Canceled) : fromStatus(status, header);
}

export function createGrpcJsTransport(baseUrl: string): Transport {
  const url = new URL(baseUrl);
  const credentials = url.protocol === 'https:' ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
  const client = new grpc.Client(url.host, credentials, OPTIONS);
  const common = (method: DescMethod, header: HeaderInit | undefined, contextValues = createContextValues()) => ({
    service: method.parent, requestMethod: 'POST', url: `${baseUrl}/${method.parent.typeName}/${method.name}`,
    header: new Headers(header), contextValues,
  });

  return {
    unary(method, signal, timeoutMs, header, input, contextValues) {
      const { path, serialize, deserialize } = codec(method);
      return runUnaryCall({
        signal, timeoutMs,
        req: { stream: false, method, ...common(method, header, contextValues), message: input },
        next: (req) => new Promise((resolve, reject) => {
          let responseHeader = new Headers();
          let message: Message | undefined;
          const call = client.makeUnaryRequest(
            path, serialize, deserialize, req.message, toMetadata(req.header), callOptions(timeoutMs),
            (_err, value) => { message = value; },
          );
          const cancel = () => call.cancel();
          req.signal.addEventListener('abort', cancel);
          call.on('metadata', (md) => { responseHeader = toHeaders(md); });
          // grpc-js reports the status right after the callback: trailers are only known then.
          call.on('status', (status) => {
            req.signal.removeEventListener('abort', cancel);
            if (status.code !== grpc.status.OK || message === undefined) {
              reject(failure(req.signal, status, responseHeader));
              return;
            }
            resolve({
              stream: false, service: method.parent, method, header: responseHeader,
              trailer: toHeaders(status.metadata), message,
            } as UnaryResponse<typeof method.input, typeof method.output>);
          });
        }),
      });
    },

    stream(method, signal, timeoutMs, header, input, contextValues) {
      if (method.methodKind !== 'server_streaming') {
        throw new ConnectError(`${method.name}: only server streaming is supported`, Code.Unimplemented);
      }
      const { path, serialize, deserialize } = codec(method);
      return runStreamingCall({
        signal, timeoutMs,
        req: { stream: true, method, ...common(method, header, contextValues), message: input },
        next: async (req) => {
          let request: Message | undefined;
          for await (const m of req.message) request = m;
          if (request === undefined) throw new ConnectError('missing request message', Code.InvalidArgument);
          const call = client.makeServerStreamRequest(
            path, serialize, deserialize, request, toMetadata(req.header), callOptions(timeoutMs),
          );
          req.signal.addEventListener('abort', () => call.cancel(), { once: true });
          const trailer = new Headers();
          const responseHeader = new Headers();
          let ended: Partial<grpc.StatusObject> | undefined;
          call.on('metadata', (md) => toHeaders(md).forEach((v, k) => responseHeader.append(k, v)));
          call.on('status', (status) => {
            ended = status;
            toHeaders(status.metadata).forEach((v, k) => trailer.append(k, v));
          });
          async function* messages() {
            try {
              for await (const m of call) yield m as Message;
            } catch (err) {
              throw failure(req.signal, (err as grpc.ServiceError) ?? ended, responseHeader);
            }
          }
          return {
            stream: true, service: method.parent, method, header: responseHeader, trailer, message: messages(),
          } as StreamResponse<typeof method.input, typeof method.output>;
        },
      });
    },
  };
}
