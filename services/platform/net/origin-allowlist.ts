// Origins an operator vouches for (PROVIDER_BASE_URL_ALLOWLIST): a regional proxy, a sandbox, a
// local stand-in. An entry is an origin (scheme, host, port) or, for stand-ins on ephemeral ports,
// a host with any port (`http://127.0.0.1:*`); never a path, query or credentials, which an
// origin check could not honour.

const ANY_PORT = /^(https?):\/\/([^/?#@]+?):\*$/i;

/** An entry in the form listedOrigin compares, or why it is not one. */
export function parseOriginEntry(entry: string): { origin: string } | { problem: string } {
  const anyPort = ANY_PORT.exec(entry);
  let url: URL;
  try {
    url = new URL(anyPort ? `${anyPort[1]}://${anyPort[2]}` : entry);
  } catch {
    return { problem: 'is not an origin such as https://proxy.example.com or http://127.0.0.1:*' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: 'must be an http or https origin' };
  if (url.username || url.password) return { problem: 'must not carry credentials' };
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || (anyPort && url.port)) {
    return { problem: 'must be an origin only (scheme, host and port), without a path or query' };
  }
  return { origin: anyPort ? `${url.protocol}//${url.hostname}:*` : url.origin };
}

/** Whether `raw`'s origin is one of `entries` (parsed by parseOriginEntry). */
export function listedOrigin(raw: string, entries: readonly string[]): boolean {
  if (entries.length === 0) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  // Credentials in the URL would go to the listed host unvetted by anyone: never listed.
  if (url.username || url.password) return false;
  return entries.includes(url.origin) || entries.includes(`${url.protocol}//${url.hostname}:*`);
}
