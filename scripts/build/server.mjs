// The server, the CLI and the tests: tsc compiles tsconfig.json into dist/, incrementally. Its build
// info (dist/.tsbuildinfo) lives in dist/ itself, so a deleted or cleaned dist/ is a full build; the
// two things tsc's own check does not see are handled here: an output deleted from a dist/ that
// kept its build info, and dependencies whose types changed under unchanged sources.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { hashes, remember, staleReason } from './fingerprint.mjs';
import { readConfig, ts } from './typescript.mjs';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** What the last successful compile was compiled against: the lock file that pins the dependencies. */
const MANIFEST = 'dist/.server-build.json';
const LOCKFILE = 'package-lock.json';

/**
 * The first file the last compile wrote that is not there, or undefined. A source newer than the
 * build info (a new file, say) is not compiled yet: tsc sees it, and its outputs are not missing.
 */
function missingOutput(config, compiledAt) {
  const ignoreCase = !ts.sys.useCaseSensitiveFileNames;
  for (const source of config.fileNames) {
    if (source.endsWith('.d.ts') || !(mtimeOf(source) <= compiledAt)) continue;
    const missing = ts.getOutputFileNames(config, source, ignoreCase).find((out) => !existsSync(out));
    if (missing) return missing;
  }
  return undefined;
}

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Compiles what changed; `compiled` says whether tsc wrote anything, `ok` whether it found no error. */
export function buildServer(root) {
  const config = readConfig(join(root, 'tsconfig.json'));
  const buildInfo = config.options.tsBuildInfoFile;
  if (!buildInfo) throw new Error('tsconfig.json sets no tsBuildInfoFile: every start would compile everything');
  const compiledAt = mtimeOf(buildInfo);
  const missing = compiledAt === undefined ? undefined : missingOutput(config, compiledAt);
  // tsc trusts its build info over dist/: without it, tsc writes every output again.
  if (missing) rmSync(buildInfo, { force: true });
  const lockReason = staleReason(root, MANIFEST, [LOCKFILE]);
  const lockChanged = lockReason !== undefined;
  // `tsc -b` decides from the sources' modification times alone, in a fraction of a second, and
  // never looks at the dependencies' types. After an install, `tsc -p` reads every file, the
  // dependencies' declarations too, and checks again only what their changes affect.
  const mode = lockChanged ? '-p' : '-b';
  const lock = hashes(root, [LOCKFILE]);
  const before = mtimeOf(buildInfo);
  const { status } = spawnSync(process.execPath, [TSC, mode, join(root, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
  const ok = status === 0;
  // Only a clean compile moves the mark: after a failed one, the next start checks as thoroughly again.
  if (ok && lockChanged) remember(root, MANIFEST, lock, []);
  return {
    ok,
    compiled: mtimeOf(buildInfo) !== before,
    reason: missing ? `${relative(root, missing)} was missing` : before === undefined ? 'no earlier build' : lockReason,
  };
}
