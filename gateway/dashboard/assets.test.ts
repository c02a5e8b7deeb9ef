import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { installErrorHandling } from '../http/errors.js';
import { DASHBOARD_CSP, dashboardAssets } from './assets.js';

// The dashboard's files as the gateway serves them: pages answer index.html under the strict
// policy, hashed assets are cached for good, the API's paths never fall back to the page, nothing
// outside the folder is reachable, and a deployment without a build says how to make one.

async function serve(root: string): Promise<FastifyInstance> {
  const app = Fastify();
  installErrorHandling(app);
  app.register(dashboardAssets(root));
  app.register(async (api) => {
    api.get('/session', async () => ({ ok: true }));
  }, { prefix: '/dashboard/api' });
  await app.ready();
  return app;
}

describe('a built dashboard', () => {
  let root: string;
  let app: FastifyInstance;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'dashboard-'));
    await mkdir(join(root, 'assets'));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>Dashboard</title><script type="module" src="/dashboard/assets/index-abc.js"></script>');
    await writeFile(join(root, 'assets', 'index-abc.js'), 'console.log(1)');
    await writeFile(join(root, '.secret'), 'no');
    app = await serve(root);
  });
  after(async () => {
    await app?.close();
    await rm(root, { recursive: true, force: true });
  });

  test('every page path answers index.html, not cached, under the Content-Security-Policy', async () => {
    for (const url of ['/dashboard', '/dashboard/', '/dashboard/payments/pay_1', '/dashboard/developers/api-keys?x=1']) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 200, url);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.body, /<title>Dashboard<\/title>/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.equal(res.headers['content-security-policy'], DASHBOARD_CSP);
      assert.equal(res.headers['x-frame-options'], 'DENY');
    }
    assert.match(DASHBOARD_CSP, /default-src 'self'/);
    assert.match(DASHBOARD_CSP, /script-src 'self';/);
    assert.match(DASHBOARD_CSP, /style-src 'self';/);
    assert.match(DASHBOARD_CSP, /frame-ancestors 'none'/);
    assert.doesNotMatch(DASHBOARD_CSP, /unsafe-inline|unsafe-eval|https?:/);
  });

  test('hashed assets are served with a long, immutable cache; a missing one is a 404, not the page', async () => {
    const js = await app.inject({ url: '/dashboard/assets/index-abc.js' });
    assert.equal(js.statusCode, 200);
    assert.match(js.headers['content-type'] as string, /javascript/);
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    const missing = await app.inject({ url: '/dashboard/assets/index-old.js' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'route_not_found');
    assert.notEqual(missing.headers['cache-control'], 'public, max-age=31536000, immutable');
  });

  test('the API keeps its own routes and 404s; dot files and paths outside the folder are not served', async () => {
    assert.deepEqual((await app.inject({ url: '/dashboard/api/session' })).json(), { ok: true });
    const unknown = await app.inject({ url: '/dashboard/api/nothing-here' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'route_not_found');
    assert.equal((await app.inject({ url: '/dashboard/.secret' })).statusCode, 404);
    for (const url of ['/dashboard/../package.json', '/dashboard/%2e%2e/%2e%2e/package.json', '/dashboard/assets/..%2f..%2findex.html', '/dashboard/assets/..%2f..%2f..%2fpackage.json']) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 404, url);
      assert.doesNotMatch(res.body, /svc-orchestrator/);
    }
  });
});

test('without a build, /dashboard answers 503 saying to run npm run build', async () => {
  const root = await mkdtemp(join(tmpdir(), 'dashboard-empty-'));
  const app = await serve(root);
  try {
    for (const url of ['/dashboard', '/dashboard/payments', '/dashboard/assets/index-abc.js']) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 503, url);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.body, /npm run build/);
    }
    // Built later, it is served without a restart.
    await writeFile(join(root, 'index.html'), '<!doctype html><title>Dashboard</title>');
    assert.equal((await app.inject({ url: '/dashboard/home' })).statusCode, 200);
  } finally {
    await app.close();
    await rm(root, { recursive: true, force: true });
  }
});
