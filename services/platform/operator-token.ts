import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
// Only ids.js: the svc CLI imports this file and should not load the whole runtime to start.
import { newSecret } from './ids.js';

export function operatorTokenPath(dataDir: string): string {
  return resolve(dataDir, 'operator-token');
}

/** The local install's operator token: kept in a file only its owner can read, made on first start. */
export async function loadOrCreateOperatorToken(dataDir: string): Promise<{ token: string; created: boolean }> {
  const path = operatorTokenPath(dataDir);
  if (existsSync(path)) return { token: (await readFile(path, 'utf8')).trim(), created: false };
  const token = newSecret('svc_op_', 40);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, created: true };
}
