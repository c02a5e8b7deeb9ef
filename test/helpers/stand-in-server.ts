// The loopback HTTP server the tests' doubles run on: stand-in providers (stripe-stand-in.ts,
// adyen-stand-in.ts), webhook receivers (webhooks-support.ts, the webhooks bench, the dashboard,
// event-isolation and listen tests), the tracing test's collector and the sandbox test's shop. A
// free port the client under test is pointed at, the request's body read whole, and a close that
// does not wait for keep-alive connections the clients hold open (nor for requests a double holds
// unanswered).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * PROVIDER_BASE_URL_ALLOWLIST for the stand-ins: the operator's opt-in that lets accounts point
 * at loopback servers on ephemeral ports (never the address policy relaxed).
 */
export const STAND_IN_ORIGINS = 'http://127.0.0.1:*';

export interface StandInServer {
  baseUrl: string;
  close(): Promise<void>;
}

export interface LoopbackServer extends StandInServer {
  /** For settings a double needs on its server (the bench's keep-alive timeout). */
  server: Server;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, baseUrl: string) => void | Promise<void>;

/**
 * Serves `handle` (the request, its body as text, the server's base URL) on a free port of
 * 127.0.0.1; `onCrash` is given what reading the body or `handle` threw, with the response (by
 * default a 500 naming the error: a request its client cut off mid-body lands there too).
 */
export async function serveLoopback(
  handle: Handler, onCrash: (err: unknown, res: ServerResponse) => void = answer500,
): Promise<LoopbackServer> {
  let baseUrl = '';
  const server = createServer((req, res) => {
    (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      await handle(req, res, Buffer.concat(chunks).toString('utf8'), baseUrl);
    })().catch((err) => onCrash(err, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    server,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function answer500(err: unknown, res: ServerResponse): void {
  if (res.headersSent) res.destroy();
  else res.writeHead(500, { 'content-type': 'text/plain' }).end(`crashed: ${String(err)}`);
}

/** A stand-in provider's server: `serveLoopback` with a handler's crash answered 500 in the provider's own error shape. */
export async function serveStandIn(
  handle: (req: IncomingMessage, res: ServerResponse, body: string, baseUrl: string) => Promise<void>,
  crashAnswer: (err: unknown) => Record<string, unknown>,
): Promise<StandInServer> {
  const { baseUrl, close } = await serveLoopback(handle, (err, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify(crashAnswer(err)));
  });
  return { baseUrl, close };
}
