import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * For receivers of svc webhooks: checks the `Svc-Signature` header of a delivery against the
 * endpoint's signing secret (`whsec_...`). Self-contained (node:crypto only) so it can be copied.
 *
 *   const ok = verifyWebhookSignature(rawBody, req.headers['svc-signature'], secret);
 *
 * `rawBody` must be the exact bytes received, before any JSON parsing. The timestamp must lie
 * within `toleranceSeconds` (300, the contract's 5 minutes) of the receiver's clock in either
 * direction, which bounds how long a captured delivery can be replayed.
 */
export interface VerifyOptions {
  toleranceSeconds?: number;
  /** The receiver's clock; tests pass a fixed time. */
  now?: Date;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  header: string | string[] | undefined,
  secret: string,
  options: VerifyOptions = {},
): boolean {
  if (typeof header !== 'string' || header.length > 4096) return false;
  let timestamp: string | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') timestamp = value;
    // Several v1 values may be sent; any one that matches is enough.
    else if (name === 'v1') candidates.push(value);
  }
  if (timestamp === undefined || !/^\d{1,15}$/.test(timestamp) || candidates.length === 0) return false;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) return false;

  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  let valid = false;
  for (const candidate of candidates) {
    if (!/^[0-9a-fA-F]{64}$/.test(candidate)) continue;
    // Constant time, and every candidate is compared, so timing tells nothing about which matched.
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) valid = true;
  }
  return valid;
}
