// Whole-system test of `svc`: the real bin as a child process against a running stack.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runSvc, type SvcRun as Run } from './helpers/svc-cli.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// The CLI reads SVC_* and DATA_DIR; the test's own environment must not leak a token or target in.
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['SVC_URL', 'SVC_OPERATOR_TOKEN', 'DATA_DIR']) delete env[name];
  return { ...env, ...extra };
}

const svc = (args: string[], env: Record<string, string>, cwd?: string) => runSvc(args, cleanEnv(env), cwd);

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('svc management CLI', () => {
  let stack: TestStack;
  let env: Record<string, string>;
  const outputs: string[] = [];

  // Every run is kept so the last test can check the operator token never reached any output.
  const run = async (args: string[], runEnv = env, cwd?: string) => {
    const result = await svc(args, runEnv, cwd);
    outputs.push(result.stdout, result.stderr);
    return result;
  };
  const json = (r: Run) => {
    assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };

  let merchantId: string;
  let projectId: string;
  let testKey: { id: string; secret: string };
  let liveKey: { id: string; secret: string };

  before(async () => {
    stack = await startTestStack();
    env = { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken };
  });
  after(async () => {
    await stack?.close();
  });

  it('creates a merchant with its default project', async () => {
    const body = json(await run(['merchant', 'create', '--name', 'Acme Ltd', '--json']));
    assert.match(body.merchant.id, /^mer_/);
    assert.match(body.project.id, /^prj_/);
    assert.equal(body.merchant.name, 'Acme Ltd');
    assert.equal(body.merchant.verification_status, 'not_submitted');
    merchantId = body.merchant.id;
    projectId = body.project.id;
  });

  it('status names the deployment, the new merchant and project, and how to get keys in each mode', async () => {
    const r = await run(['status']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.equal(lines[0], `svc at ${stack.baseUrl}`);
    assert.ok(lines.includes(`merchant ${merchantId}  Acme Ltd  (verification: not submitted)`), r.stdout);
    assert.ok(lines.includes(`  project ${projectId}  Default project`), r.stdout);
    assert.ok(lines.includes(`    test  no keys: svc key create --project ${projectId} --mode test --name NAME`), r.stdout);
    assert.ok(lines.includes(`    live  no keys; live keys need verification: svc merchant verify ${merchantId}`), r.stdout);
  });

  it('refuses a live key before verification', async () => {
    const r = await run(['key', 'create', '--project', projectId, '--mode', 'live', '--name', 'too early', '--json']);
    assert.equal(r.code, 1);
    assert.equal(JSON.parse(r.stdout).error.code, 'live_mode_not_verified');
    assert.match(r.stderr, /^error: live_mode_not_verified: /m);
  });

  it('creates a test key whose secret works against /v1/me', async () => {
    const r = await run(['key', 'create', '--project', projectId, '--mode', 'test', '--name', 'ci']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /shown once/);
    const secret = /^secret: (\S+)$/m.exec(r.stdout)?.[1] ?? '';
    assert.match(secret, /^svc_sk_test_/, r.stdout);
    const id = /^key (key_\S+)/m.exec(r.stdout)?.[1] ?? '';
    assert.ok(id, r.stdout);
    testKey = { id, secret };

    const me = await request(stack.baseUrl, 'GET', '/v1/me', { key: secret });
    assert.equal(me.status, 200);
    assert.equal(me.body.project.id, projectId);
    assert.equal(me.body.merchant.id, merchantId);
    assert.equal(me.body.mode, 'test');
    assert.equal(me.body.api_key.id, testKey.id);
    assert.ok(secret.startsWith(me.body.api_key.prefix));
  });

  it('creates a live key once the merchant is verified', async () => {
    const verified = json(await run(['merchant', 'verify', merchantId, '--json']));
    assert.equal(verified.id, merchantId);
    assert.equal(verified.verification_status, 'approved');

    const r = await run(['key', 'create', '--project', projectId, '--mode', 'live', '--name', 'prod', '--json']);
    const body = json(r);
    assert.match(body.secret, /^svc_sk_live_/);
    assert.equal(body.mode, 'live');
    assert.match(r.stderr, /shown once/);
    liveKey = { id: body.id, secret: body.secret };

    const me = await request(stack.baseUrl, 'GET', '/v1/me', { key: liveKey.secret });
    assert.equal(me.status, 200);
    assert.equal(me.body.mode, 'live');
  });

  it('status --json is the API\'s status with the base URL: projects and active keys per mode', async () => {
    // --json before the command words works as after them: it is common to every command.
    const body = json(await run(['--json', 'status']));
    assert.equal(body.object, 'status');
    assert.equal(body.base_url, stack.baseUrl);
    const merchant = body.merchants.find((m: any) => m.id === merchantId);
    assert.equal(merchant.verification_status, 'approved');
    assert.deepEqual(merchant.projects.map((p: any) => p.id), [projectId]);
    const { test: testMode, live } = merchant.projects[0].modes;
    assert.deepEqual([testMode.available, testMode.keys.map((k: any) => k.id)], [true, [testKey.id]]);
    assert.deepEqual([live.available, live.keys.map((k: any) => k.id)], [true, [liveKey.id]]);
    for (const key of [...testMode.keys, ...live.keys]) assert.equal('secret' in key, false);

    const human = await run(['status']);
    assert.match(human.stdout, new RegExp(`^    test  ${testKey.id} svc_sk_test_\\w+… ci$`, 'm'));
    assert.match(human.stdout, new RegExp(`^    live  ${liveKey.id} svc_sk_live_\\w+… prod$`, 'm'));
  });

  it('lists merchants a page at a time, and a merchant\'s projects', async () => {
    const other = json(await run(['merchant', 'create', '--name', 'Beta GmbH', '--json']));
    const all = json(await run(['merchant', 'list', '--json']));
    assert.deepEqual(all.data.map((m: any) => m.id).slice(-2), [merchantId, other.merchant.id], 'oldest first');
    assert.equal(all.has_more, false);

    const first = json(await run(['merchant', 'list', '--limit', '1', '--json']));
    assert.equal(first.data.length, 1);
    assert.equal(first.has_more, true);
    const rest = json(await run(['merchant', 'list', '--cursor', first.next_cursor, '--json']));
    assert.deepEqual([...first.data, ...rest.data].map((m: any) => m.id), all.data.map((m: any) => m.id));

    const human = await run(['merchant', 'list', '--limit', '1']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`^${first.data[0].id}  ${first.data[0].name}  \\(verification: \\w+\\)`, 'm'));
    assert.match(human.stdout, new RegExp(`^more: --cursor ${first.next_cursor}$`, 'm'));

    const projects = json(await run(['project', 'list', '--merchant', merchantId, '--json']));
    assert.deepEqual(projects.data.map((p: any) => [p.id, p.merchant_id, p.name]), [[projectId, merchantId, 'Default project']]);
    const humanProjects = await run(['project', 'list', '--merchant', other.merchant.id]);
    assert.match(humanProjects.stdout, new RegExp(`^${other.project.id}  Default project  \\(merchant ${other.merchant.id}\\)`, 'm'));

    const unknown = await run(['project', 'list', '--merchant', 'mer_doesnotexist', '--json']);
    assert.equal(unknown.code, 1);
    assert.equal(JSON.parse(unknown.stdout).error.code, 'resource_not_found');
  });

  it('lists keys without their secrets', async () => {
    const r = await run(['key', 'list', '--project', projectId, '--json']);
    const body = json(r);
    assert.deepEqual(body.data.map((k: any) => k.id).sort(), [testKey.id, liveKey.id].sort());
    for (const key of body.data) assert.equal('secret' in key, false);
    const human = await run(['key', 'list', '--project', projectId]);
    assert.equal(human.code, 0, human.stderr);
    for (const text of [r.stdout, r.stderr, human.stdout, human.stderr]) {
      assert.ok(!text.includes(testKey.secret) && !text.includes(liveKey.secret), 'a secret leaked into list output');
    }
    assert.match(human.stdout, new RegExp(`^${testKey.id}\\s+test\\s+.*active`, 'm'));
  });

  it('revokes a key so it no longer authenticates', async () => {
    const body = json(await run(['key', 'revoke', testKey.id, '--json']));
    assert.equal(body.id, testKey.id);
    assert.ok(body.revoked_at);
    const me = await request(stack.baseUrl, 'GET', '/v1/me', { key: testKey.secret });
    assert.equal(me.status, 401);
    assert.equal(me.body.error.code, 'invalid_api_key');
  });

  it('rejects a merchant\'s pending verification with a reason, and refuses one with nothing pending', async () => {
    const nothing = await run(['merchant', 'reject', merchantId, '--reason', 'Unreadable', '--json']);
    assert.equal(nothing.code, 1);
    assert.equal(JSON.parse(nothing.stdout).error.code, 'invalid_state_transition');
    const missing = await run(['merchant', 'reject', merchantId]);
    assert.equal(missing.code, 2);
  });

  it('reports an unknown id as an API error', async () => {
    const r = await run(['merchant', 'verify', 'mer_doesnotexist', '--json']);
    assert.equal(r.code, 1);
    assert.equal(JSON.parse(r.stdout).error.code, 'resource_not_found');
  });

  it('rejects a wrong operator token', async () => {
    const r = await run(['key', 'list', '--project', projectId, '--json'], {
      ...env, SVC_OPERATOR_TOKEN: 'svc_op_wrongwrongwrongwrongwrong',
    });
    assert.equal(r.code, 1);
    assert.equal(JSON.parse(r.stdout).error.code, 'invalid_api_key');
    assert.match(r.stderr, /^error: invalid_api_key: /m);
    assert.ok(!r.stderr.includes('svc_op_wrongwrong'), 'the token must not be printed');
  });

  it('reads the token from <DATA_DIR>/operator-token in the current folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
    try {
      const noToken = await run(['key', 'list', '--project', projectId], { SVC_URL: stack.baseUrl }, dir);
      assert.equal(noToken.code, 1);
      assert.match(noToken.stderr, /SVC_OPERATOR_TOKEN/);
      await mkdir(join(dir, 'state'));
      await writeFile(join(dir, 'state', 'operator-token'), `${stack.operatorToken}\n`, { mode: 0o600 });
      const r = await run(['key', 'list', '--project', projectId, '--json'], {
        SVC_URL: stack.baseUrl, DATA_DIR: 'state',
      }, dir);
      assert.equal(json(r).data.length, 2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the URL when nothing listens there', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await run(['key', 'list', '--project', projectId], { ...env, SVC_URL: url });
    assert.equal(r.code, 1);
    assert.ok(r.stderr.includes(url), r.stderr);
    assert.match(r.stderr, /connection refused/);
  });

  it('answers help on stdout with exit 0', async () => {
    for (const args of [['--help'], ['help'], ['help', 'key'], ['key', '--help'], ['key', 'create', '--help']]) {
      const r = await run(args);
      assert.equal(r.code, 0, `svc ${args.join(' ')}: exit ${r.code}`);
      assert.match(r.stdout, /usage: svc|^ +svc key/m);
      assert.equal(r.stderr, '');
    }
    assert.match((await run(['help', 'key'])).stdout, /svc key create/);
    assert.match((await run(['key', 'create', '--help'])).stdout, /^usage: svc key create/);
  });

  it('exits 2 with usage for unknown commands and usage mistakes', async () => {
    for (const args of [['frobnicate'], [], ['key'], ['key', 'create', '--project', projectId],
      ['key', 'create', '--project', projectId, '--mode', 'prod', '--name', 'x'], ['merchant', 'verify'],
      ['merchant', 'create', '--name', 'x', '--token', 'abc'], ['status', 'extra'], ['project', 'list'],
      ['merchant', 'list', '--limit', '0'], ['merchant', 'list', '--limit', '201']]) {
      const r = await run(args);
      assert.equal(r.code, 2, `svc ${args.join(' ')}: exit ${r.code}`);
      assert.match(r.stderr, /usage: svc/);
      assert.equal(r.stdout, '');
    }
  });

  it('never prints the operator token', () => {
    for (const text of outputs) assert.ok(!text.includes(stack.operatorToken));
  });
});
