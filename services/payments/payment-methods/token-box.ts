import { createSecretBox, isBoxed } from '../../platform/secret-box.js';
import { PROVIDER_SECRET_KEY } from '../provider-credentials/index.js';

// Stored methods' tokens at rest. A token charges the card it stands for, so it
// is sealed like the provider credentials that make it usable: AES-256-GCM under
// PROVIDER_SECRET_KEY (`npm start` makes one; a deployment sets it to connect any provider). Without
// the key (a test stack, a deployment that connects no provider) a token is kept marked `plain:`, as
// webhook secrets are, the part warns at every start, and the first start with the key seals it
// (sealStoredTokens in store.ts).

export interface TokenBox {
  /** Whether `seal` encrypts: the key is set. */
  readonly sealing: boolean;
  /** Whether a second key is set (PROVIDER_SECRET_KEY_OTHER): a rotation, when every row may need sealing anew. */
  readonly rotating: boolean;
  seal(token: string): string;
  /** The token; a value an earlier version stored as it was (until the start-up sealing reaches it) is read as it is. */
  open(stored: string): string;
  /** Whether a stored value is sealed under the key in use. */
  current(stored: string): boolean;
}

export function createTokenBox(key: Buffer | undefined, other?: Buffer): TokenBox {
  const box = createSecretBox(key, { variable: PROVIDER_SECRET_KEY, allowPlain: true, other });
  return {
    sealing: key !== undefined,
    rotating: key !== undefined && other !== undefined,
    current: (stored) => box.current(stored),
    seal: (token) => box.seal(token),
    open: (stored) => (isBoxed(stored) ? box.open(stored) : stored),
  };
}
