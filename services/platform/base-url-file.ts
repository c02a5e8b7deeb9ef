import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';

// `npm start` may listen on any PORT: it writes where it listens beside the operator token, so
// the CLI (`node bin/svc.js`) run from the same folder finds it without --api-url or SVC_URL. Only node imports:
// the CLI loads this file.

export function baseUrlPath(dataDir: string): string {
  return resolve(dataDir, 'base-url');
}

export async function writeBaseUrl(dataDir: string, baseUrl: string): Promise<void> {
  await writeFile(baseUrlPath(dataDir), `${baseUrl}\n`);
}

/** The address the last `npm start` with this DATA_DIR listened on, or undefined without one. */
export function readBaseUrl(dataDir: string): string | undefined {
  try {
    const text = readFileSync(baseUrlPath(dataDir), 'utf8').trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}
