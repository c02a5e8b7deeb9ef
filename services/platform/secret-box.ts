import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets the service must use again (webhook signing secrets for HMAC, providers' API keys) cannot
 * be hashed like API keys, so they are sealed with AES-256-GCM under a 32-byte key from the
 * environment: a database dump or backup alone then reveals none of them. Each stored value says
 * how it was stored, so setting a key later keeps older rows readable.
 */
export interface SecretBox {
  seal(secret: string): string;
  open(stored: string): string;
  /** Whether `stored` is sealed under the key `seal` uses now (not plain, not under `other`). */
  current(stored: string): boolean;
}

export interface SecretBoxOptions {
  /** The environment variable that holds the key, named in every refusal. */
  variable: string;
  /**
   * Whether a secret may be stored as it is when no key is configured (webhook secrets: readable
   * only through their part's schema). When false, sealing without a key throws SecretKeyMissingError.
   */
  allowPlain: boolean;
  /**
   * A second key `open` also tries, never `seal`: during a key rotation (docs/operations.md, "Keys
   * at rest") the key being retired, or, before the switch, the one coming.
   */
  other?: Buffer;
}

/** A secret that must be encrypted, and no key to encrypt it with. */
export class SecretKeyMissingError extends Error {
  constructor(readonly variable: string) {
    super(`${variable} is not set: it must hold 32 bytes as 64 hex characters or base64 (e.g. \`openssl rand -hex 32\`)`);
  }
}

const PLAIN = 'plain:';
const SEALED = 'aes256gcm:';

/** Whether `stored` is in a form `open` reads: sealed, or `plain:` (a value stored before its column was boxed is neither). */
export function isBoxed(stored: string): boolean {
  return stored.startsWith(SEALED) || stored.startsWith(PLAIN);
}

function openWith(key: Buffer, sealed: string): string {
  const [iv, tag, data] = sealed.slice(SEALED.length).split(':').map((p) => Buffer.from(p, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}

export function createSecretBox(key: Buffer | undefined, options: SecretBoxOptions): SecretBox {
  for (const k of [key, options.other]) if (k !== undefined && k.length !== 32) throw new Error(`${options.variable} must be 32 bytes`);
  const opensUnderKey = (stored: string): boolean => {
    try {
      openWith(key!, stored);
      return true;
    } catch {
      return false;
    }
  };
  return {
    seal(secret) {
      if (!key) {
        if (options.allowPlain) return PLAIN + secret;
        throw new SecretKeyMissingError(options.variable);
      }
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${SEALED}${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${data.toString('base64')}`;
    },
    open(stored) {
      if (stored.startsWith(PLAIN)) {
        if (!options.allowPlain) throw new Error(`a secret is stored unencrypted where ${options.variable} is required`);
        return stored.slice(PLAIN.length);
      }
      if (!stored.startsWith(SEALED)) throw new Error('unknown stored secret format');
      if (!key) throw new SecretKeyMissingError(options.variable);
      if (options.other && !opensUnderKey(stored)) return openWith(options.other, stored);
      return openWith(key, stored);
    },
    current: (stored) => key !== undefined && stored.startsWith(SEALED) && opensUnderKey(stored),
  };
}

/**
 * The same box, remembering what it opened (up to `max` sealed values, then starting over). The
 * webhooks dispatcher opens its endpoint's secret for every delivery: AES-GCM's set-up per call was
 * about 7 % of the part's CPU in a burst (docs/performance.md). Keyed by the sealed text, so a
 * rotated secret, sealed anew, is opened afresh; a refused value (tampered, or no key) is not kept.
 */
export function rememberingOpened(box: SecretBox, max = 1000): SecretBox {
  const opened = new Map<string, string>();
  return {
    seal: (secret) => box.seal(secret),
    current: (stored) => box.current(stored),
    open(stored) {
      let secret = opened.get(stored);
      if (secret === undefined) {
        secret = box.open(stored);
        if (opened.size >= max) opened.clear();
        opened.set(stored, secret);
      }
      return secret;
    },
  };
}
