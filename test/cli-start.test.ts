// What `svc` loads to answer: its help and an API call load no provider SDK and nothing of the
// server runtime (the CLI talks HTTP; docs/architecture.md, "cli/"). Each command runs as its own
// process with a hook that records every module it loads (helpers/loaded-modules.ts); the time
// each took from spawn to exit is printed, never judged.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { projectPath } from '../services/platform/paths.js';
import { runSvc } from './helpers/svc-cli.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

/** Packages the CLI must never load: the providers' SDKs and the server's runtime. */
const FORBIDDEN = /\/node_modules\/(stripe|@adyen|checkout-sdk-node|@paypal|@mollie|@basis-theory|pg|nats|fastify|@connectrpc|@grpc|pino)\//;
/** Our own server-side code: the parts, the gateway, the composition and the platform's runtime. */
const SERVER_CODE = /\/dist\/(services\/(payments|routing-risk|ledger|payouts|webhooks)\/|gateway\/|all-in-one\/|services\/platform\/(?!ids\.js$|base-url-file\.js$|operator-token\.js$))/;

const hook = pathToFileURL(projectPath('dist', 'test', 'helpers', 'loaded-modules.js')).href;

describe('svc loads only the CLI', () => {
  let stack: TestStack;
  let dir: string;
  before(async () => {
    stack = await startTestStack();
    dir = await mkdtemp(join(tmpdir(), 'svc-loads-'));
  });
  after(async () => {
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Runs svc with the recording hook; answers its output and the modules it loaded. */
  async function traced(name: string, args: string[]) {
    const file = join(dir, `${name}.txt`);
    const env = { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken, LOADED_MODULES_FILE: file };
    const started = performance.now();
    const run = await runSvc(args, env, dir, ['--import', hook]);
    const ms = performance.now() - started;
    const loaded = [...new Set((await readFile(file, 'utf8')).split('\n').filter(Boolean))];
    console.log(`svc ${args.join(' ')}: ${ms.toFixed(0)} ms from spawn to exit, ${loaded.length} modules loaded`);
    return { run, loaded };
  }

  function assertOnlyTheCli(loaded: string[]) {
    // The hook saw the CLI itself, so an empty record cannot pass.
    assert.ok(loaded.some((url) => url.endsWith('/dist/cli/main.js')), 'the record has the CLI in it');
    assert.deepEqual(loaded.filter((url) => FORBIDDEN.test(url)), [], 'no provider SDK, no server package');
    assert.deepEqual(loaded.filter((url) => SERVER_CODE.test(url)), [], 'no part, no gateway, no platform runtime');
  }

  it('svc --help', async () => {
    const { run, loaded } = await traced('help', ['--help']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /usage: svc/);
    assertOnlyTheCli(loaded);
  });

  it('an API call (svc merchant create), every provider\'s facts read', async () => {
    const created = await traced('call', ['merchant', 'create', '--name', 'Load check', '--json']);
    assert.equal(created.run.code, 0, created.run.stderr);
    assert.match(JSON.parse(created.run.stdout).merchant.id, /^mer_/);
    assertOnlyTheCli(created.loaded);
    // The providers' facts are read (their list is loaded), their connectors never.
    assert.ok(created.loaded.some((url) => url.endsWith('/dist/services/connectors/stripe/facts.js')));
    assert.deepEqual(created.loaded.filter((url) => /\/dist\/services\/connectors\/[^/]+\/(?!index|facts)[^/]+\.js$/.test(url)), []);
  });
});
