import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createClient as generateHeyApiClient } from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { projectPath } from '../services/platform/paths.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

// A merchant's first typed client: generated from the document the deployment serves, with the two
// generators merchants reach for (openapi-typescript + openapi-fetch, @hey-api/openapi-ts), then a
// small program that creates a manual-capture payment with metadata, captures and refunds it is
// type-checked in strict mode and run against the stack. Both generators get the document as a
// value, so generation reads nothing from the network.

let stack: TestStack;
let key: string;
let doc: Record<string, any>;
let dir: string;

before(async () => {
  stack = await startTestStack();
  key = (await stack.newMerchantKey('test')).secret;
  doc = await (await fetch(`${stack.baseUrl}/openapi.json`)).json() as Record<string, any>;
  dir = await mkdtemp(join(tmpdir(), 'svc-typed-client-'));
  // The programs import openapi-fetch and @types/node as a merchant's project would.
  await symlink(projectPath('node_modules'), join(dir, 'node_modules'), 'dir');
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  await stack?.close();
});

const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, types: ['node'],
};
// One host for both programs: TypeScript's own libraries and @types/node are parsed once.
const host = ts.createCompilerHost(COMPILER_OPTIONS);
const parsed = new Map<string, ts.SourceFile | undefined>();
const getSourceFile = host.getSourceFile.bind(host);
host.getSourceFile = (file, language, onError) => {
  if (!file.includes('/node_modules/')) return getSourceFile(file, language, onError);
  if (!parsed.has(file)) parsed.set(file, getSourceFile(file, language, onError));
  return parsed.get(file);
};

/** Type-checks the files in strict mode and emits them; any diagnostic fails the test. */
function compile(files: string[]): void {
  const program = ts.createProgram(files.map((f) => join(dir, f)), COMPILER_OPTIONS, host);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const format = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' };
  assert.equal(diagnostics.length, 0, ts.formatDiagnostics(diagnostics, format));
  assert.equal(program.emit().emitSkipped, false);
}

/** Runs a compiled program against the stack; it prints one JSON line of what it saw. */
async function run(file: string): Promise<any> {
  const env = { ...process.env, SVC_BASE_URL: doc.servers[0].url, SVC_API_KEY: key };
  const { stdout } = await promisify(execFile)(process.execPath, [join(dir, file)], { env, timeout: 30_000 });
  return JSON.parse(stdout);
}

const PAYMENT = "{ amount: 5000, currency: 'EUR', payment_method: 'card', capture_method: 'manual', metadata: { order_id: '42' } }";

const OPENAPI_FETCH_PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const client = createClient<paths>({
  baseUrl: process.env.SVC_BASE_URL, headers: { authorization: \`Bearer \${process.env.SVC_API_KEY}\` },
});
const created = await client.POST('/v1/payments', {
  params: { header: { 'Idempotency-Key': \`order-42-\${Date.now()}\` } }, body: ${PAYMENT},
});
if (!created.data) throw new Error(\`create: \${created.response.status} \${created.error?.error.code}\`);
const orderId: string | undefined = created.data.metadata.order_id;
const id = created.data.id;
const captured = await client.POST('/v1/payments/{id}/capture', { params: { path: { id } }, body: { amount: 3000 } });
if (!captured.data) throw new Error(\`capture: \${captured.response.status} \${captured.error?.error.code}\`);
const refunded = await client.POST('/v1/payments/{id}/refund', { params: { path: { id } }, body: { amount: 1000 } });
if (!refunded.data) throw new Error(\`refund: \${refunded.response.status} \${refunded.error?.error.message}\`);
console.log(JSON.stringify({
  statuses: [created.response.status, captured.response.status, refunded.response.status],
  created: created.data.status, captured: [captured.data.status, captured.data.captured_amount],
  refund: [refunded.data.status, refunded.data.amount], orderId,
}));

// The types are the contract's, not \`any\`: the compiler refuses each of these (never called).
export async function refused(): Promise<void> {
  // @ts-expect-error metadata values are strings
  await client.POST('/v1/payments', { body: { amount: 1, currency: 'EUR', payment_method: 'card', metadata: { n: 42 } } });
  // @ts-expect-error amount is required
  await client.POST('/v1/payments', { body: { currency: 'EUR', payment_method: 'card' } });
  // @ts-expect-error capture_method is automatic or manual
  await client.POST('/v1/payments', { body: { amount: 1, currency: 'EUR', payment_method: 'card', capture_method: 'later' } });
  // @ts-expect-error no such operation
  await client.POST('/v1/payments/{id}/void', { params: { path: { id: 'x' } } });
}
`;

const HEY_API_PROGRAM = `
import { client } from './hey/client.gen.js';
import { capturePayment, createPayment, refundPayment } from './hey/sdk.gen.js';
import type { CreatePaymentData } from './hey/types.gen.js';

// No base URL here: the generated client takes it from the document's servers.
client.setConfig({ headers: { authorization: \`Bearer \${process.env.SVC_API_KEY}\` } });
const body: CreatePaymentData['body'] = ${PAYMENT};
// throwOnError: a refusal throws, so data and response are there (and typed so).
const created = await createPayment({ body, throwOnError: true });
const orderId: string | undefined = created.data.metadata.order_id;
const path = { id: created.data.id };
const captured = await capturePayment({ path, body: { amount: 3000 }, throwOnError: true });
const refunded = await refundPayment({ path, body: { amount: 1000 }, throwOnError: true });
console.log(JSON.stringify({
  statuses: [created.response.status, captured.response.status, refunded.response.status],
  created: created.data.status, captured: [captured.data.status, captured.data.captured_amount],
  refund: [refunded.data.status, refunded.data.amount], orderId,
}));

// @ts-expect-error metadata values are strings
export const refused: CreatePaymentData['body'] = { amount: 1, currency: 'EUR', payment_method: 'card', metadata: { n: 42 } };
`;

const EXPECTED = {
  statuses: [201, 200, 201],
  created: 'authorized',
  captured: ['captured', 3000],
  refund: ['successful', 1000],
  orderId: '42',
};

test('the served document names this deployment as its server', () => {
  assert.deepEqual(doc.servers.map((s: { url: string }) => s.url), [stack.baseUrl]);
});

test('openapi-typescript + openapi-fetch: create with metadata, capture and refund type-check and run', async () => {
  await writeFile(join(dir, 'api.ts'), astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0])));
  await writeFile(join(dir, 'with-openapi-fetch.ts'), OPENAPI_FETCH_PROGRAM);
  compile(['with-openapi-fetch.ts']);
  assert.deepEqual(await run('with-openapi-fetch.js'), EXPECTED);
});

test('@hey-api/openapi-ts: its SDK creates with metadata, captures and refunds, type-checked and run', async () => {
  await mkdir(join(dir, 'hey'));
  await generateHeyApiClient({
    input: doc,
    output: { path: join(dir, 'hey'), importFileExtension: '.js' },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
    logs: { level: 'silent', file: false },
  });
  await writeFile(join(dir, 'with-hey-api.ts'), HEY_API_PROGRAM);
  compile(['with-hey-api.ts']);
  assert.deepEqual(await run('with-hey-api.js'), EXPECTED);
});
