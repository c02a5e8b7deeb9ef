// A webhook receiver written from the contract alone: node examples/webhook-receiver.mjs
// with WEBHOOK_SECRET=whsec_... (the endpoint's signing secret) and optionally PORT (default 4242).
// Register it with: node bin/svc.js endpoint create --project prj_... --mode test --url http://127.0.0.1:4242/hooks --events '*'
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('set WEBHOOK_SECRET to the endpoint signing secret (whsec_...)');
  process.exit(2);
}
const TOLERANCE_SECONDS = 300;

/** `Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
function verify(rawBody, header) {
  if (typeof header !== 'string') return false;
  const fields = header.split(',').map((p) => p.split('='));
  const t = fields.find(([k]) => k === 't')?.[1];
  const given = fields.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!t || !/^\d+$/.test(t) || Math.abs(Date.now() / 1000 - Number(t)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return given.some((v) => /^[0-9a-f]{64}$/i.test(v) && timingSafeEqual(expected, Buffer.from(v, 'hex')));
}

// Deliveries are at least once: a resend or a retry after a lost response repeats an event id.
const seen = new Set();

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks); // the exact bytes: verify before parsing
    if (req.method !== 'POST' || !verify(raw, req.headers['svc-signature'])) {
      console.log(`refused: bad signature (${req.headers['svc-delivery-id'] ?? 'no delivery id'})`);
      res.writeHead(400).end();
      return;
    }
    const event = JSON.parse(raw.toString('utf8'));
    const repeat = seen.has(event.id);
    seen.add(event.id);
    console.log(`verified ${event.id} ${event.type} ${event.data.object.id}${repeat ? ' (repeat, ignored)' : ''}`);
    res.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 4242), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/hooks`);
});
