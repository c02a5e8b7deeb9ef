// The providers' SDKs are imported on a provider's first call (connectors/lazy-import.ts): `npm
// start`'s process serving sandbox payments holds none of them, so its heap, and what each major
// collection marks, is the smaller by them (docs/performance.md). The connectors' own tests, against
// the providers' stand-ins, load each SDK on its first call.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { projectPath } from '../services/platform/paths.js';
import { startAllInOne } from './helpers/all-in-one-process.js';

const SDKS = /\/node_modules\/(stripe|@adyen\/api-library|checkout-sdk-node|@paypal\/paypal-server-sdk|@mollie\/api-client|@basis-theory\/node-sdk)\//;
const hook = pathToFileURL(projectPath('dist', 'test', 'helpers', 'loaded-modules.js')).href;

test("npm start's process serves sandbox payments without loading any provider's SDK", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-sdks-'));
  const file = join(dir, 'loaded.txt');
  try {
    const aio = await startAllInOne(process.env.NATS_URL, {
      name: 'all-in-one', entry: 'all-in-one/main.js', env: { NODE_OPTIONS: `--import ${hook}`, LOADED_MODULES_FILE: file },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${aio.baseUrl}/v1/payments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${aio.secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 1000 + i, currency: 'EUR', payment_method: 'card' }),
        });
        assert.equal(res.status, 201, await res.text());
      }
    } finally {
      await aio.close();
    }
    const loaded = [...new Set((await readFile(file, 'utf8')).split('\n').filter(Boolean))];
    // The connectors themselves are there, so a record that saw nothing cannot pass.
    for (const connector of ['stripe', 'adyen', 'checkout', 'paypal', 'mollie', 'basis-theory']) {
      assert.ok(loaded.some((url) => url.includes(`/dist/services/connectors/${connector}/`)), `the ${connector} connector is loaded`);
    }
    assert.deepEqual(loaded.filter((url) => SDKS.test(url)), [], 'no provider SDK');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
