// The project's own files, as paths relative to its root: what the scans over source and pages read.
// Installed packages, build output, generated code and local data are not the project's writing.
import { readdirSync } from 'node:fs';
import { projectPath } from '../../services/platform/paths.js';

const SKIPPED = new Set(['node_modules', 'dist', '.git', '.data', 'gen']);

/** Every file under `dir` (the root by default), sorted. */
export function projectFiles(dir = ''): string[] {
  return readdirSync(projectPath(dir), { withFileTypes: true }).flatMap((e) => {
    if (SKIPPED.has(e.name)) return [];
    const path = dir ? `${dir}/${e.name}` : e.name;
    return e.isDirectory() ? projectFiles(path) : [path];
  }).sort();
}
