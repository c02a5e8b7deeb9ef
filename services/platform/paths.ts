import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Code runs from the sources' compiled copy under dist/, but SQL and other assets stay
// beside the sources: resolve them from the project root (the folder with package.json).
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the project root (package.json)');
    dir = parent;
  }
  return dir;
}

const PROJECT_ROOT = findRoot();

export function projectPath(...segments: string[]): string {
  return join(PROJECT_ROOT, ...segments);
}
