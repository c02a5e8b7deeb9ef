import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Config } from '../services/platform/config.js';
import { StartUpError } from '../services/platform/retry.js';

// The keys `npm start` makes when they are not set, with or without DATABASE_URL, so a laptop
// install encrypts what it stores like a deployment does: provider credentials (connecting a
// provider needs the key) and webhook endpoints' signing secrets (else stored plain). Each is 32
// random bytes in hex, made on first start in DATA_DIR in a file only its owner can read, and read
// again on every later start: a copy of the data folder carries the keys, a database dump alone
// does not. A deployment sets the variables instead (docs/operations.md, "Internal callers").

/** Each key `npm start` may make: its variable, its file in DATA_DIR, and where it goes in the config. */
export const LOCAL_KEYS = [
  { variable: 'PROVIDER_SECRET_KEY', file: 'provider-secret-key', field: 'providerSecretKey' },
  { variable: 'WEBHOOK_SECRET_KEY', file: 'webhook-secret-key', field: 'webhookSecretKey' },
] as const;

export function localKeyPath(dataDir: string, file: string): string {
  return resolve(dataDir, file);
}

/** The key in `file` under `dataDir`, made there (mode 0600) if it is not there yet. */
export async function loadOrCreateLocalKey(dataDir: string, file: string, variable: string): Promise<Buffer> {
  const path = localKeyPath(dataDir, file);
  if (existsSync(path)) {
    const key = Buffer.from((await readFile(path, 'utf8')).trim(), 'hex');
    if (key.length !== 32) {
      throw new StartUpError(`${path} must hold 32 bytes as 64 hex characters (the key used when ${variable} is not set); ` +
        `restore it from a copy of the data folder, or set ${variable}`);
    }
    return key;
  }
  const key = randomBytes(32);
  await mkdir(dirname(path), { recursive: true });
  // 'wx': two starts racing on a new folder cannot each make their own key.
  await writeFile(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/** Fills in each key the environment does not set; returns the variables filled from DATA_DIR. */
export async function fillLocalKeys(config: Config): Promise<string[]> {
  const filled: string[] = [];
  for (const { variable, file, field } of LOCAL_KEYS) {
    if (config[field]) continue;
    config[field] = await loadOrCreateLocalKey(config.dataDir, file, variable);
    filled.push(variable);
  }
  return filled;
}
