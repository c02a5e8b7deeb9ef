import * as grpc from '@grpc/grpc-js';
import { create, fromBinary, toBinary, type DescMethod, type Message } from '@bufbuild/protobuf';
import {
  Code, ConnectError, createContextValues, type StreamResponse, type Transport, type UnaryResponse,
} from '@connectrpc/connect';
import { getAbortSignalReason, runStreamingCall } from '@connectrpc/connect/protocol';
import { fromStatus, toHeaders, toMetadata } from './grpc-metadata.js';

// A Connect Transport whose wire is a @grpc/grpc-js Client: `createClient(Service, transport)` call
// sites stay as they are, and a failure comes out as the ConnectError a Connect gRPC client would
// raise (same code, rawMessage and metadata), which is what services/contract/errors.ts reads.
// A unary call is the hot path (every hop of a payment): it leaves the deadline to grpc-js, which
// keeps a timer per call anyway, and listens to the caller's signal only if there is one. Connect's
// runUnaryCall would add a deadline controller, a linked controller and, once answered, an abort
// with a DOMException and its stack trace, per call (profiled: ~8 % of a hop's CPU). The
// stream path (only Health.Watch) keeps Connect's runStreamingCall.

const OPTIONS: grpc.ChannelOptions = {
  // Connect reads answers of any size; so do we (a request is what the server limits).
  'grpc.max_receive_message_length': -1,
  // A peer part that restarts is back within a second or two; grpc-js would otherwise back off up
  // to two minutes between attempts and refuse calls meanwhile.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1_000,
};

type HeaderInit = ConstructorParameters<typeof Headers>[0];

interface Codec { path: string; serialize(message: Message): Buffer; deserialize(bytes: Buffer): Message }

/** A method's path and (de)serializers, made once per method rather than per call. */
const codecs = new WeakMap<DescMethod, Codec>();
function codec(method: DescMethod): Codec {
  let made = codecs.get(method);
  if (made) return made;
  made = {
    path: `/${method.parent.typeName}/${method.name}`,
    serialize: (message: Message) => {
      const bytes = toBinary(method.input, message);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    deserialize: (bytes: Buffer) => fromBinary(method.output, bytes),
  };
  codecs.set(method, made);
  return made;
}

/** The deadline travels as grpc-timeout, so the server's handler sees it too. */
function callOptions(timeoutMs: number | undefined): { deadline?: number } {
  return timeoutMs === undefined ? {} : { deadline: Date.now() + timeoutMs };
}

/** Why a call ended early: the caller's abort reason wins over the CANCELLED status it caused. */
function failure(signal: AbortSignal | undefined, status: Partial<grpc.StatusObject>, header: Headers): ConnectError {
  return signal?.aborted ? ConnectError.from(getAbortSignalReason(signal), Code.Canceled) : fromStatus(status, header);
}

/** Connect's words for a call past its own deadline, which grpc-js reports as DEADLINE_EXCEEDED. */
function unaryFailure(
  signal: AbortSignal | undefined, deadline: number | undefined, status: grpc.StatusObject, header: Headers,
): ConnectError {
  const pastDeadline = deadline !== undefined && Date.now() >= deadline;
  if (!signal?.aborted && status.code === grpc.status.DEADLINE_EXCEEDED && pastDeadline) {
    return new ConnectError('the operation timed out', Code.DeadlineExceeded);
  }
  return failure(signal, status, header);
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
    unary(method, signal, timeoutMs, header, input) {
      const { path, serialize, deserialize } = codec(method);
      if (signal?.aborted) return Promise.reject(ConnectError.from(getAbortSignalReason(signal), Code.Canceled));
      const options = callOptions(timeoutMs);
      return new Promise((resolve, reject) => {
        let responseHeader: Headers | undefined;
        let message: Message | undefined;
        const metadata = toMetadata(header instanceof Headers ? header : new Headers(header));
        const call = client.makeUnaryRequest(
          path, serialize, deserialize, create(method.input, input), metadata, options,
          (_err, value) => { message = value; },
        );
        const cancel = () => call.cancel();
        signal?.addEventListener('abort', cancel);
        call.on('metadata', (md) => { responseHeader = toHeaders(md); });
        // grpc-js reports the status right after the callback: trailers are only known then.
        call.on('status', (status) => {
          signal?.removeEventListener('abort', cancel);
          responseHeader ??= new Headers();
          if (status.code !== grpc.status.OK || message === undefined) {
            reject(unaryFailure(signal, options.deadline, status, responseHeader));
            return;
          }
          resolve({
            stream: false, service: method.parent, method, header: responseHeader,
            trailer: toHeaders(status.metadata), message,
          } as UnaryResponse<typeof method.input, typeof method.output>);
        });
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
