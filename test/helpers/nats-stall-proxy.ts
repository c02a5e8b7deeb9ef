import { createServer, connect, type Server, type Socket } from 'node:net';

// A TCP proxy in front of a NATS server that makes it "back but slow": connections and plain
// messages pass, but once the proxy has let through a JetStream stream creation (a part's first
// connect made its stream), the JetStream API requests after it go unanswered for a while, so
// the client's calls time out, as on a broker restarted under load. Then everything passes again.
// It reads the client's side of the protocol (PUB/HPUB carry a byte count) to drop whole requests.

export interface StallProxy {
  url: string;
  /** JetStream API requests withheld so far. */
  withheld(): number;
  close(): Promise<void>;
}

const JS_API = '$JS.API.';

/** Splits the client's byte stream into whole protocol messages, each with its subject when it has one. */
function clientMessages(onMessage: (bytes: Buffer, subject: string | undefined) => void) {
  let buffered = Buffer.alloc(0);
  return (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const eol = buffered.indexOf('\r\n');
      if (eol < 0) return;
      const line = buffered.subarray(0, eol).toString('latin1');
      const [op, ...args] = line.split(' ').filter(Boolean);
      const verb = op?.toUpperCase();
      // PUB subject [reply] size / HPUB subject [reply] header-size total-size: a payload and CRLF follow.
      const payload = verb === 'PUB' || verb === 'HPUB' ? Number(args[args.length - 1]) + 2 : 0;
      const length = eol + 2 + payload;
      if (buffered.length < length) return;
      onMessage(buffered.subarray(0, length), payload > 0 ? args[0] : undefined);
      buffered = buffered.subarray(length);
    }
  };
}

export async function startStallProxy(natsUrl: string, stallMs: number): Promise<StallProxy> {
  const target = new URL(natsUrl);
  let stallUntil = 0;
  let armed = true;
  let withheld = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    upstream.on('data', (d) => client.write(d));
    client.on('data', clientMessages((bytes, subject) => {
      const api = subject?.startsWith(JS_API) ?? false;
      if (api && Date.now() < stallUntil) {
        withheld++;
        return;
      }
      upstream.write(bytes);
      // The stream now exists: from here on the broker is slow for a while (once).
      if (armed && subject?.startsWith(`${JS_API}STREAM.CREATE.`)) {
        armed = false;
        stallUntil = Date.now() + stallMs;
      }
    }));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `nats://127.0.0.1:${port}`,
    withheld: () => withheld,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
