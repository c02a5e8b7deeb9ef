import { createHash, randomBytes, randomFillSync } from 'node:crypto';

// Crockford base32, lowercase: digits sort before letters, so ids sort by creation time.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix = 'pay' | 'att' | 'tle' | 'rf' | 'po' | 'pm' | 'evt' | 'whd' | 'whsec' | 'mer' | 'prj' | 'key'
  | 'req' | 'rsk' | 'rtd' | 'rtr' | 'prv' | 'pac' | 'aud' | 'usr' | 'ses' | 'inv' | 'vrf' | 'pmc'
  | 'dp' | 'dpm' | 'dpf' | 'dpr';

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

// Random bytes drawn a few kilobytes at a time: one system call per 256 ids, not one per id.
const pool = Buffer.alloc(4096);
let used = pool.length;

function encodeRandom(chars: number): string {
  if (used + chars > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  let out = '';
  for (let i = used; i < used + chars; i++) out += ALPHABET[pool[i] & 31];
  used += chars;
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

/** When an id made by newId was made (its first ten characters after the prefix); undefined for another string. */
export function idTime(id: string): Date | undefined {
  const time = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
  if (time.length !== 10) return undefined;
  let ms = 0;
  for (const c of time) {
    const digit = ALPHABET.indexOf(c);
    if (digit < 0) return undefined;
    ms = ms * 32 + digit;
  }
  return new Date(ms);
}
