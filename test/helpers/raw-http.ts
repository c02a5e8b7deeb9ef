import { connect, type Socket } from 'node:net';

// HTTP over a bare socket, for what fetch refuses to send: control bytes in headers, invalid
// UTF-8 in a URL or a body, oversized header sections, bodies sent halfway.

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
  text: string;
}

export function parseRawResponse(raw: Buffer): RawResponse {
  const text = raw.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const rest = split < 0 ? '' : text.slice(split + 4);
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  const bodyText = length === undefined ? rest : Buffer.from(rest).subarray(0, length).toString('utf8');
  let body: any;
  try {
    body = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, text };
}

export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection (or `timeoutMs` passes). */
export function readAll(socket: Socket, timeoutMs = 10_000): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    };
    const timer = setTimeout(() => {
      socket.destroy();
      done();
    }, timeoutMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.once('close', done);
  });
}

/** Sends the bytes as they are (the request should say `connection: close`) and reads the answer. */
export async function rawRequest(port: number, bytes: Buffer | string): Promise<RawResponse> {
  const socket = await openSocket(port);
  const answer = readAll(socket);
  socket.write(bytes);
  return parseRawResponse(await answer);
}

/** A request head with `connection: close`, for rawRequest. */
export function head(method: string, target: string, headers: Record<string, string>, bodyLength?: number): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (bodyLength !== undefined) lines.push(`content-length: ${bodyLength}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
