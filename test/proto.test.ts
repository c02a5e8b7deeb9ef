import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { projectPath } from '../services/platform/paths.js';

const protoDir = projectPath('proto');
const bin = projectPath('node_modules', '.bin');
const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };

async function files(dir: string, out: string[] = []): Promise<string[]> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await files(path, out);
    else out.push(path);
  }
  return out;
}

test('buf lint passes on every proto', () => {
  // execFileSync throws, failing the test, when buf exits non-zero; its findings are in the error.
  execFileSync(join(bin, 'buf'), ['lint'], { cwd: protoDir, env, stdio: 'pipe' });
});

test('committed generated code matches what buf generates from the protos', async () => {
  const out = await mkdtemp(join(tmpdir(), 'svc-gen-'));
  try {
    const template = (await readFile(join(protoDir, 'buf.gen.yaml'), 'utf8')).replace(/out: gen/, `out: ${out}`);
    const templatePath = join(out, 'buf.gen.yaml');
    await writeFile(templatePath, template);
    execFileSync(join(bin, 'buf'), ['generate', '--template', templatePath], { cwd: protoDir, env, stdio: 'pipe' });
    const committed = (await files(join(protoDir, 'gen'))).map((f) => relative(join(protoDir, 'gen'), f)).sort();
    const fresh = (await files(out)).map((f) => relative(out, f)).filter((f) => f !== 'buf.gen.yaml').sort();
    assert.deepEqual(committed, fresh, 'generated file set differs: run `npm run generate`');
    for (const f of fresh) {
      assert.equal(
        await readFile(join(protoDir, 'gen', f), 'utf8'),
        await readFile(join(out, f), 'utf8'),
        `${f} is stale: run \`npm run generate\``,
      );
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
