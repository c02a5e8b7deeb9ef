import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { DomainError } from '../../services/contract/index.js';
import { gatedHash } from './hash-gate.js';

// Passwords are kept as scrypt hashes: memory-hard (each guess costs 128·N·r bytes, 32 MiB here), built
// into node, no native module to build. The stored string carries its own parameters, so raising them
// later leaves older hashes readable: scrypt$N$r$p$salt$hash (salt and hash in base64url).
// Every derivation a request asks for passes the process's bound on hashing in flight (hash-gate.ts).

export const MIN_PASSWORD_LENGTH = 10;
/** Long enough for any passphrase; bounds the work an anonymous request can ask for. */
export const MAX_PASSWORD_LENGTH = 200;

const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  // maxmem must exceed 128·N·r (node's default allows only 32 MiB, exactly our need).
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** 422 on `param` unless the password has the length the dashboard asks for. */
export function checkPasswordRules(password: string, param = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new DomainError(
      'validation_error',
      `${param} must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`,
      { param },
    );
  }
}

async function hashUngated(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** The stored form of a new password; 429 rate_limited (RetryLater) when the hashing bound is reached. */
export function hashPassword(password: string): Promise<string> {
  return gatedHash(() => hashUngated(password));
}

/** Whether the password is the one hashed; a malformed stored value never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await gatedHash(() => derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) }));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

// Signing in as an unknown email costs the same scrypt work as a wrong password, so response time
// does not tell which emails have an account. The decoy itself is made once, outside the bound: a
// refusal cached here would refuse every unknown email for good.
let decoy: Promise<string> | undefined;
export async function spendDecoyHash(password: string): Promise<void> {
  decoy ??= hashUngated(randomBytes(16).toString('hex'));
  await verifyPassword(password, await decoy);
}
