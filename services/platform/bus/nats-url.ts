import type { ConnectionOptions } from 'nats';

/**
 * NATS_URL as connection options. It may list several servers (comma-separated) and carry
 * credentials as `nats://user:password@host:4222` or a token as `nats://token@host:4222`; the
 * client wants those as options, and servers without them (so they are never echoed in logs).
 */
export function natsConnectionOptions(raw: string): Pick<ConnectionOptions, 'servers' | 'user' | 'pass' | 'token'> {
  const servers: string[] = [];
  let user: string | undefined;
  let pass: string | undefined;
  for (const entry of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `nats://${entry}`;
    let url: URL;
    try {
      url = new URL(withScheme);
    } catch {
      servers.push(entry);
      continue;
    }
    if (url.username && user === undefined) {
      user = decodeURIComponent(url.username);
      pass = url.password ? decodeURIComponent(url.password) : undefined;
    }
    servers.push(`${url.protocol}//${url.host}`);
  }
  if (user === undefined) return { servers };
  return pass === undefined ? { servers, token: user } : { servers, user, pass };
}
