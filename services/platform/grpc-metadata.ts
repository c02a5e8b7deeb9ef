import { Metadata, type StatusObject } from '@grpc/grpc-js';
import { Code, ConnectError } from '@connectrpc/connect';

// Connect speaks Fetch Headers, @grpc/grpc-js speaks Metadata. Both carry binary ("-bin") values as
// base64 text on the wire, so converting through base64 keeps them byte for byte.

/** Metadata as Connect's Headers: every value of every key, binary ones base64-encoded as Connect does. */
export function toHeaders(metadata: Metadata | undefined): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(metadata?.toHttp2Headers() ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== undefined) headers.append(key, String(v));
    }
  }
  return headers;
}

/** Headers as Metadata; grpc-* keys belong to the protocol and are never sent as metadata. */
export function toMetadata(headers: Headers | undefined): Metadata {
  const metadata = new Metadata();
  headers?.forEach((value, key) => {
    if (key.startsWith('grpc-')) return;
    if (key.endsWith('-bin')) {
      // Headers joins repeated values with ", "; base64 has neither character.
      for (const v of value.split(/,\s*/)) metadata.add(key, Buffer.from(v, 'base64'));
    } else {
      metadata.add(key, value);
    }
  });
  return metadata;
}

/**
 * A failure as the gRPC status grpc-js sends: Connect's codes are gRPC's codes, number for number.
 * `details` is the plain message: grpc-js percent-encodes grpc-message itself (encodeURI), which
 * both its own client (decodeURI) and Connect's read back as written. Connect's handlers encode with
 * encodeURIComponent, whose %3A and %2C a stock grpc-js client shows as they are
 * (test/grpc-stock-client.test.ts).
 */
export function toStatus(err: unknown): Partial<StatusObject> {
  const ce = ConnectError.from(err);
  return { code: ce.code as number, details: ce.rawMessage, metadata: toMetadata(ce.metadata) };
}

/** A gRPC status received by grpc-js as the ConnectError a Connect client would have raised. */
export function fromStatus(status: Partial<StatusObject>, header?: Headers): ConnectError {
  const metadata = toHeaders(status.metadata);
  header?.forEach((value, key) => metadata.append(key, value));
  return new ConnectError(status.details ?? '', (status.code ?? Code.Unknown) as Code, metadata);
}
