import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export function providerSecretKeyPath(dataDir: string): string {
  return resolve(dataDir, 'provider-secret-key');
}

/**
 * The key that seals provider credentials when `npm start` runs its embedded Postgres and no
 * PROVIDER_SECRET_KEY is set: 32 random bytes in hex, made on first start in a file only its owner
 * can read, beside the database it protects (a copy of the data folder carries both; a database
 * dump alone does not). A deployment on its own DATABASE_URL sets PROVIDER_SECRET_KEY instead.
 */
export async function loadOrCreateProviderSecretKey(dataDir: string): Promise<Buffer> {
  const path = providerSecretKeyPath(dataDir);
  if (existsSync(path)) {
    const key = Buffer.from((await readFile(path, 'utf8')).trim(), 'hex');
    if (key.length !== 32) throw new Error(`${path} must hold 32 bytes as 64 hex characters`);
    return key;
  }
  const key = randomBytes(32);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
