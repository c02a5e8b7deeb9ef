// The merchant dashboard: type-checked with dashboard/tsconfig.json, then bundled by vite into
// dist/dashboard. Both take half a minute and their result depends only on files named in a manifest
// beside the output (dist/.dashboard-build.json): everything under dashboard/, the lock file that
// pins vite, preact and typescript, this step's own code, and every file of the product outside
// dashboard/ that the dashboard imports (the type-check's program lists them). While all read the
// same and every output is there, the step is skipped.
import { join, relative, sep } from 'node:path';
import { filesUnder, forget, hashes, remember, staleReason } from './fingerprint.mjs';
import { readConfig, reportDiagnostics, ts } from './typescript.mjs';

const MANIFEST = 'dist/.dashboard-build.json';
const OUT_DIR = 'dist/dashboard';
const ALWAYS_READ = ['package-lock.json', 'scripts/build/dashboard.mjs', 'scripts/build/typescript.mjs'];

/** The files the step must consider even before it runs: those it could not learn from a build. */
function ownInputs(root) {
  return [...filesUnder(root, 'dashboard'), ...ALWAYS_READ];
}

/** tsc -p dashboard/tsconfig.json (no emit): the errors, and the product's files it read. */
function typeCheck(root) {
  const config = readConfig(join(root, 'dashboard', 'tsconfig.json'));
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const read = program.getSourceFiles()
    .filter((f) => !program.isSourceFileDefaultLibrary(f) && !program.isSourceFileFromExternalLibrary(f))
    .map((f) => relative(root, f.fileName).split(sep).join('/'))
    .filter((f) => !f.startsWith('../') && !f.split('/').includes('node_modules'));
  return { diagnostics, read };
}

/**
 * Builds the dashboard unless nothing it depends on changed. `skipped` says which; `ok` is false
 * after type errors (printed) and the output is then left as it was.
 */
export async function buildDashboard(root) {
  const expected = ownInputs(root);
  const reason = staleReason(root, MANIFEST, expected);
  if (reason === undefined) return { ok: true, skipped: true };
  const own = hashes(root, expected);
  forget(root, MANIFEST);
  const { diagnostics, read } = typeCheck(root);
  if (diagnostics.length > 0) {
    reportDiagnostics(diagnostics);
    return { ok: false, skipped: false, reason };
  }
  const others = hashes(root, read.filter((f) => !(f in own)));
  // Loaded only when it runs: a start that skips the dashboard does not pay for vite.
  const { build } = await import('vite');
  await build({ configFile: join(root, 'dashboard', 'vite.config.ts') });
  remember(root, MANIFEST, { ...own, ...others }, filesUnder(root, OUT_DIR));
  return { ok: true, skipped: false, reason };
}
