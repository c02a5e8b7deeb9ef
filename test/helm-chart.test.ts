// The Helm chart (helm/): values against values.schema.json, every value documented, templates
// that reference only what exists, the parts wired as the code calls them, and, where helm is on
// the PATH, helm lint and helm template rendered and validated like the kustomize overlays.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { isMap, parse, parseDocument, type YAMLMap } from 'yaml';
import { projectPath } from '../services/shared/index.js';
import {
  assertInstall, byKind, CALLS, callersOf, GATEWAY, onPath, parseManifests, PARTS, run, SERVICE_PARTS,
  validateAgainstKubernetes, type Obj,
} from './helpers/kubernetes.js';

// ---------------------------------------------------------------------------------------------
// Helm

const chartDir = projectPath('helm');
const helm = onPath('helm', 'version');
const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8')) as Obj;
const defaults = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Obj;
const valueSets = readdirSync(join(chartDir, 'ci')).filter((f) => f.endsWith('.yaml')).sort();

/** Helm's coalescing of -f files over values.yaml: maps merge deeply, null deletes a key. */
function mergeValues(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete out[k];
    else if (v && typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' && !Array.isArray(out[k])) out[k] = mergeValues(out[k], v);
    else out[k] = v;
  }
  return out;
}

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
let validateValues: ReturnType<typeof ajv.compile> | undefined;
function schemaErrors(values: Obj): string[] {
  // Compiled on first use, so a broken schema fails a test rather than the whole file.
  validateValues ??= ajv.compile(schema);
  return validateValues(values) ? [] : (validateValues.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** Value sets the schema must refuse, each with the reason. */
const BAD_VALUE_SETS: Array<[string, Obj]> = [
  ['no database, NATS or operator token', {}],
  ['a MySQL URL', { secrets: { existingSecret: 'svc', databaseUrl: 'mysql://db/svc' } }],
  ['a short operator token', { secrets: { databaseUrl: 'postgres://db/svc', natsUrl: 'nats://nats:4222', operatorToken: 'short' } }],
  ['a writable root filesystem', { secrets: { existingSecret: 'svc' }, securityContext: { readOnlyRootFilesystem: false } }],
  ['privilege escalation', { secrets: { existingSecret: 'svc' }, securityContext: { allowPrivilegeEscalation: true } }],
  ['a part without limits', { secrets: { existingSecret: 'svc' }, parts: { payments: { resources: { limits: null } } } }],
  ['zero replicas', { secrets: { existingSecret: 'svc' }, parts: { ledger: { replicaCount: 0 } } }],
  ['DATABASE_URL in plain env', { secrets: { existingSecret: 'svc' }, env: { DATABASE_URL: 'postgres://db/svc' } }],
  ['a misspelt key', { secrets: { existingSecret: 'svc' }, ingres: { enabled: true } }],
  ['an unknown part', { secrets: { existingSecret: 'svc' }, parts: { billing: defaults.parts.ledger } }],
  ['an unknown pull policy', { secrets: { existingSecret: 'svc' }, image: { pullPolicy: 'Sometimes' } }],
  ['a bad webhook key', { secrets: { existingSecret: 'svc', webhookSecretKey: 'not-32-bytes' } }],
];

test('the chart has its metadata', () => {
  const chart = parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as Obj;
  assert.equal(chart.apiVersion, 'v2');
  assert.equal(chart.name, 'svc');
  assert.match(chart.version, /^\d+\.\d+\.\d+/);
  const pkg = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as Obj;
  assert.equal(chart.appVersion, pkg.version, 'appVersion is the package version (the default image tag)');
  for (const t of ['_helpers.tpl', 'NOTES.txt', 'deployments.yaml', 'services.yaml', 'serviceaccounts.yaml', 'hpa.yaml', 'pdb.yaml',
    'networkpolicies.yaml', 'ingress.yaml', 'secret.yaml', 'migration-job.yaml']) {
    assert.ok(existsSync(join(chartDir, 'templates', t)), `templates/${t}`);
  }
});

test('the chart values validate against values.schema.json, and bad ones are refused', () => {
  assert.ok(valueSets.length >= 3, 'several value sets in helm/ci');
  for (const file of valueSets) {
    const values = mergeValues(defaults, parse(readFileSync(join(chartDir, 'ci', file), 'utf8')) as Obj);
    assert.deepEqual(schemaErrors(values), [], `helm/ci/${file}`);
  }
  for (const [why, over] of BAD_VALUE_SETS) {
    assert.notDeepEqual(schemaErrors(mergeValues(defaults, over)), [], `refused: ${why}`);
  }
});

test('every value is documented in values.yaml and described in the schema', () => {
  const doc = parseDocument(readFileSync(join(chartDir, 'values.yaml'), 'utf8'));
  // Kubernetes' own fields and environment variables are documented by their parent's comment.
  const passThrough = new Set(['env', 'podSecurityContext', 'securityContext', 'resources']);
  const undocumented: string[] = [];
  const walk = (node: unknown, path: string[]) => {
    if (!isMap(node)) return;
    (node as YAMLMap).items.forEach((pair, i) => {
      const key = String((pair.key as { value: unknown }).value);
      const commented = Boolean((pair.key as { commentBefore?: string }).commentBefore) || (i === 0 && Boolean((node as YAMLMap).commentBefore));
      const depth = path.length + 1;
      const wanted = depth <= 2 || (path[0] === 'parts' && path[1] === 'gateway' && depth === 3);
      if (wanted && !commented && !passThrough.has(path.at(-1) ?? '')) undocumented.push([...path, key].join('.'));
      if (!passThrough.has(key)) walk(pair.value, [...path, key]);
    });
  };
  walk(doc.contents, []);
  assert.deepEqual(undocumented, [], 'values.yaml keys without a comment');

  const undescribed: string[] = [];
  const visit = (s: Obj, path: string) => {
    for (const [key, sub] of Object.entries((s.properties ?? {}) as Obj)) {
      if (!sub.description && !sub.$ref) undescribed.push(`${path}${key}`);
      visit(sub, `${path}${key}.`);
    }
  };
  visit(schema, '');
  for (const [name, def] of Object.entries(schema.definitions as Obj)) visit(def, `#${name}.`);
  assert.deepEqual(undescribed, [], 'schema properties without a description');
  for (const key of Object.keys(schema.properties)) assert.ok(key in defaults, `values.yaml has ${key}`);
});

test('the chart templates reference only defined helpers and existing values', () => {
  const dir = join(chartDir, 'templates');
  const texts = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
  const all = Object.values(texts).join('\n');
  const defined = new Set([...all.matchAll(/\{\{-?\s*define\s+"([^"]+)"/g)].map((m) => m[1]));
  for (const [file, text] of Object.entries(texts)) {
    assert.equal((text.match(/\{\{/g) ?? []).length, (text.match(/\}\}/g) ?? []).length, `${file}: balanced {{ }}`);
    const actions = [...text.matchAll(/\{\{-?\s*(\/\*[\s\S]*?\*\/|[^}]*?)\s*-?\}\}/g)].map((m) => m[1]);
    const opened = actions.filter((a) => /^(if|range|with|define|block)\b/.test(a)).length;
    const ended = actions.filter((a) => /^end\b/.test(a)).length;
    assert.equal(opened, ended, `${file}: every if/range/with/define has its end`);
    for (const m of text.matchAll(/\b(?:include|template)\s+"([^"]+)"/g)) assert.ok(defined.has(m[1]), `${file}: "${m[1]}" is defined`);
    for (const m of text.matchAll(/\.Values((?:\.[A-Za-z_]\w*)+)/g)) {
      let node: unknown = defaults;
      for (const key of m[1].slice(1).split('.')) {
        assert.ok(node && typeof node === 'object' && key in (node as Obj), `${file}: .Values${m[1]} is in values.yaml`);
        node = (node as Obj)[key];
      }
    }
  }
  assert.match(texts['migration-job.yaml'], /helm\.sh\/hook: pre-install,pre-upgrade/, 'the migration Job is a pre-install/pre-upgrade hook');
  const notes = texts['NOTES.txt'];
  for (const needed of ['port-forward', 'SVC_URL', 'SVC_OPERATOR_TOKEN', 'npx svc merchant create', 'npx svc key create']) {
    assert.ok(notes.includes(needed), `NOTES.txt tells: ${needed}`);
  }
});

test('the chart wires the parts as the code calls them', () => {
  const helpers = readFileSync(join(chartDir, 'templates', '_helpers.tpl'), 'utf8');
  const block = /\{\{-?\s*define "svc\.topology"\s*-?\}\}([\s\S]*?)\{\{-?\s*end\s*-?\}\}/.exec(helpers);
  assert.ok(block, '_helpers.tpl defines svc.topology');
  const topology = parse(block[1]) as Record<string, { calls: string[]; internet: boolean }>;
  assert.deepEqual(Object.keys(topology).sort(), [...PARTS].sort(), 'every part is in the topology');
  for (const part of PARTS) assert.deepEqual([...topology[part].calls].sort(), CALLS[part], `${part} calls`);
  for (const part of ['payments', 'payouts', 'webhooks']) assert.equal(topology[part].internet, true, `${part} reaches the internet`);
});

test('callers come from the code and the design', () => {
  // A guard on the guard: the parsing of the mains finds what they call today.
  assert.ok(CALLS.gateway.includes('payments') && CALLS.payments.includes('routing-risk'));
  for (const part of SERVICE_PARTS) assert.ok(callersOf(part).includes(GATEWAY), `the gateway calls ${part}`);
});

// The issue asks for helm's own checks where helm is on the PATH. Debian has no package for it, so
// elsewhere the test is not registered at all (rather than reported as skipped) and the run says so.
if (!helm) console.log('# helm is not on the PATH: the chart was checked without rendering it');
if (helm) test('helm lint and helm template pass for every value set and refuse bad ones', async () => {
  for (const file of valueSets) {
    const values = join(chartDir, 'ci', file);
    run('helm', ['lint', '--strict', chartDir, '-f', values]);
    const label = `helm template -f ci/${file}`;
    const objects = parseManifests(run('helm', ['template', 'svc', chartDir, '--namespace', 'svc', '-f', values]), label);
    await validateAgainstKubernetes(objects, label);
    assertInstall(objects, label);
    const job = byKind(objects, 'Job')[0];
    assert.match(job.metadata.annotations['helm.sh/hook'], /pre-install/, `${label}: the Job is a pre-install hook`);
    assert.match(job.metadata.annotations['helm.sh/hook'], /pre-upgrade/, `${label}: the Job is a pre-upgrade hook`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-helm-'));
  try {
    for (const [why, over] of BAD_VALUE_SETS) {
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, JSON.stringify(over));
      assert.throws(() => run('helm', ['template', 'svc', chartDir, '-f', file]), `helm refuses ${why}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

