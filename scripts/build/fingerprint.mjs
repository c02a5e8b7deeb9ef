// What a build step read and wrote, by content and size, kept beside the build output: a later
// start compares it with the files as they are now and skips a step whose inputs and outputs are
// exactly as that step left them. Content, not modification times: a checkout, a copy or an editor
// that saves without changing anything does not force a rebuild, and an edit never goes unseen.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The file's SHA-256, or null when it cannot be read (deleted, say). */
export function hashFile(path) {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return null;
  }
}

/** Every file under dir, as paths relative to root with forward slashes; none under dir: empty. */
export function filesUnder(root, dir) {
  const out = [];
  const walk = (path) => {
    let entries;
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name === 'node_modules') continue;
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(join(root, dir));
  return out.sort();
}

/** Each file's hash, keyed by its path relative to root. */
export function hashes(root, files) {
  return Object.fromEntries(files.map((f) => [f, hashFile(join(root, f))]));
}

function sizeOf(path) {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/**
 * Why the step must run, or undefined when it may be skipped: a manifest, every file the step
 * must consider (`expected`) among its inputs, every input with its recorded content and every
 * output present with its recorded size.
 */
export function staleReason(root, manifestPath, expected) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(root, manifestPath), 'utf8'));
  } catch {
    return 'no earlier build';
  }
  const { inputs = {}, outputs = {} } = manifest;
  const added = expected.find((f) => !(f in inputs));
  if (added !== undefined) return `${added} is new`;
  for (const [file, hash] of Object.entries(inputs)) {
    if (hashFile(join(root, file)) !== hash) return `${file} changed`;
  }
  for (const [file, size] of Object.entries(outputs)) {
    if (sizeOf(join(root, file)) !== size) return `${file} is missing or changed`;
  }
  return undefined;
}

/** Forgets the last build: a step that fails or is interrupted half-way is never trusted. */
export function forget(root, manifestPath) {
  rmSync(join(root, manifestPath), { force: true });
}

/** Records what a finished step read (hashed before it read them) and the files it wrote. */
export function remember(root, manifestPath, inputHashes, outputFiles) {
  const outputs = Object.fromEntries(outputFiles.map((f) => [f, sizeOf(join(root, f))]));
  writeFileSync(join(root, manifestPath), `${JSON.stringify({ inputs: inputHashes, outputs }, null, 1)}\n`);
}
