// The layering of docs/architecture.md, as .dependency-cruiser.cjs writes it, holds over every
// source file: no import cycle, no arrow back up the floors, a provider's SDK only behind its
// folder's connector loader. And the rules do fail: a small tree that breaks two of them is refused.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { projectPath } from '../services/platform/paths.js';

const SOURCES = ['services', 'gateway', 'cli', 'all-in-one', 'dashboard/src', 'proto'];
const CONFIG = projectPath('.dependency-cruiser.cjs');
const BIN = projectPath('node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

async function cruise(cwd: string, sources: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath, [BIN, '--config', CONFIG, '--output-type', 'err', ...sources], { cwd, maxBuffer: 16 * 1024 * 1024 },
    );
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

test('every import keeps the layering of docs/architecture.md', async () => {
  const { code, out } = await cruise(projectPath(), SOURCES);
  assert.equal(code, 0, out);
  assert.match(out, /no dependency violations found/);
});

test('the rules refuse a cycle and a reach into a part\'s internals', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'layering-'));
  try {
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
      'cli/main.ts': "import { helper } from '../services/payments/payments/helper.js';\nexport const run = helper;\n",
      'services/payments/payments/helper.ts': "import { other } from './other.js';\nexport const helper = other;\n",
      'services/payments/payments/other.ts': "import { helper } from './helper.js';\nexport const other = () => helper;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, dirname(path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    await symlink(projectPath('node_modules'), join(dir, 'node_modules'));
    const { code, out } = await cruise(dir, ['cli', 'services']);
    assert.notEqual(code, 0, out);
    assert.match(out, /no-circular: services\/payments\/payments\/helper\.ts/);
    assert.match(out, /parts-through-their-index: cli\/main\.ts → services\/payments\/payments\/helper\.ts/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
