// Acme Pay's API as the tests' stand-in serves it: charges by reference (the attempt id), one key
// it accepts, and every request kept for the test to read. A token `tok_decline` is declined.
import { serveLoopback, type StandInServer } from '../../helpers/stand-in-server.js';

export interface AcmePayRequest { method: string; path: string; authorization: string | undefined; body: any }

export interface AcmePayStandIn extends StandInServer {
  requests: AcmePayRequest[];
}

export async function startAcmePayStandIn(apiKey: string): Promise<AcmePayStandIn> {
  const requests: AcmePayRequest[] = [];
  const charges = new Map<string, { id: string; status: string; decline_code?: string }>();
  const server = await serveLoopback((req, res, text) => {
    const body = text === '' ? undefined : JSON.parse(text);
    requests.push({ method: req.method!, path: req.url!, authorization: req.headers.authorization, body });
    const json = (status: number, value: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    if (req.headers.authorization !== `Bearer ${apiKey}`) return json(401, { error: 'invalid api key' });
    if (req.method === 'GET' && req.url === '/me') return json(200, { account: 'acct_1' });
    if (req.method === 'GET' && req.url === '/settlements') return json(200, []);
    if (req.method === 'POST' && req.url === '/charges') {
      const charge = charges.get(body.reference) ?? (body.token === 'tok_decline'
        ? { id: `ch_${charges.size + 1}`, status: 'declined', decline_code: 'do_not_honor' }
        : { id: `ch_${charges.size + 1}`, status: 'approved' });
      charges.set(body.reference, charge);
      return json(200, charge);
    }
    const found = req.method === 'GET' && req.url!.startsWith('/charges/') && charges.get(decodeURIComponent(req.url!.slice(9)));
    return found ? json(200, found) : json(404, { error: 'not found' });
  });
  return { ...server, requests };
}
