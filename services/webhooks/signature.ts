import { createHmac } from 'node:crypto';

/** The contract's Svc-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** What history keeps of a signature: enough to tell two apart, not enough to replay one. */
export function truncateSignature(header: string): string {
  return header.replace(/v1=([0-9a-f]{8})[0-9a-f]*/, 'v1=$1…');
}
