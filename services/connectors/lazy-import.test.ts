import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lazyImport } from './lazy-import.js';

test('a lazy module is imported once, on the first load, and is known as loaded only after that load finished', async () => {
  let imports = 0;
  const sdk = lazyImport(async () => {
    imports += 1;
    return { name: 'sdk' };
  });
  assert.equal(imports, 0, 'nothing is imported before the first load');
  assert.equal(sdk.loaded(), undefined);
  const [a, b] = await Promise.all([sdk.load(), sdk.load()]);
  assert.equal(imports, 1, 'two loads side by side import it once');
  assert.equal(a, b);
  assert.equal(sdk.loaded(), a);
  assert.equal(await sdk.load(), a);
  assert.equal(imports, 1);
});
