import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Endpoint signing secrets must be usable for HMAC, so they cannot be hashed like API keys. With
 * WEBHOOK_SECRET_KEY set they are stored AES-256-GCM encrypted (a database dump or backup alone
 * then cannot forge webhooks); without it they are stored as they are, readable only through the
 * webhooks schema. Each stored value says which, so setting the key later keeps old rows readable.
 */
export interface SecretBox {
  seal(secret: string): string;
  open(stored: string): string;
}

const PLAIN = 'plain:';
const SEALED = 'aes256gcm:';

export function createSecretBox(key: Buffer | undefined): SecretBox {
  if (key !== undefined && key.length !== 32) throw new Error('the secret key must be 32 bytes');
  return {
    seal(secret) {
      if (!key) return PLAIN + secret;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${SEALED}${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${data.toString('base64')}`;
    },
    open(stored) {
      if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
      if (!stored.startsWith(SEALED)) throw new Error('unknown stored secret format');
      if (!key) throw new Error('an endpoint secret is encrypted but WEBHOOK_SECRET_KEY is not set');
      const [iv, tag, data] = stored.slice(SEALED.length).split(':').map((p) => Buffer.from(p, 'base64'));
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
    },
  };
}
