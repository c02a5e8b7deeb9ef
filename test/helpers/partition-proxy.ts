import { connect, createServer, type Server, type Socket } from 'node:net';

// A TCP proxy between a part and Postgres that can be cut like a network partition: while cut it
// forwards nothing in either direction and closes nothing, so neither end hears of it (packets
// dropped, not refused) and every byte waits, as TCP's retransmits would. Healed, the bytes flow.

export interface PartitionProxy {
  /** host:port the part connects to instead of Postgres's. */
  port: number;
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startPartitionProxy(targetHost: string, targetPort: number): Promise<PartitionProxy> {
  let cut = false;
  const sockets = new Set<Socket>();
  // Bytes read while cut, by the socket they are for, in order.
  const held: Array<{ to: Socket; data: Buffer }> = [];
  const forward = (from: Socket, to: Socket) => from.on('data', (data) => {
    if (cut) held.push({ to, data });
    else to.write(data);
  });
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    track(client);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      cut = true;
    },
    heal() {
      cut = false;
      for (const { to, data } of held.splice(0)) if (!to.destroyed) to.write(data);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
