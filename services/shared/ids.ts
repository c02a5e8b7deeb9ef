import { createHash, randomBytes } from 'node:crypto';

// Crockford base32, lowercase: digits sort before letters, so ids sort by creation time.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix = 'pay' | 'att' | 'tle' | 'rf' | 'po' | 'pm' | 'evt' | 'whd' | 'whsec' | 'mer' | 'prj' | 'key'
  | 'req' | 'rsk' | 'rtd' | 'rtr' | 'prv' | 'pac' | 'aud';

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function encodeRandom(chars: number): string {
  const bytes = randomBytes(chars);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

/** `<prefix>_` + 10 characters of millisecond time + 16 random characters (80 bits). */
export function newId(prefix: IdPrefix, now: Date = new Date()): string {
  return `${prefix}_${encodeTime(now.getTime())}${encodeRandom(16)}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A secret with 190+ bits of entropy in base62, behind a readable prefix. */
export function newSecret(prefix: string, chars = 32): string {
  let out = '';
  while (out.length < chars) {
    for (const b of randomBytes(chars)) {
      // Rejection sampling keeps every character equally likely.
      if (b < 248 && out.length < chars) out += BASE62[b % 62];
    }
  }
  return prefix + out;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
