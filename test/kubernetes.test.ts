// Checks of what installs svc on Kubernetes: the image (deploy/Dockerfile, deploy/entrypoint.sh),
// the kustomize overlays (deploy/overlays/*) and the Helm chart (helm/).
//
// Rendered manifests are validated twice against the Kubernetes API schemas shipped by the
// kubernetes-models package: its JSON-schema validators (types, required fields, enums, formats)
// and, because the API's schemas allow unknown fields, a TypeScript excess-property check of every
// object against the package's type of its kind, so a misspelt field (`runAsNonroot`) fails too.
// Then every workload must have probes, requests and limits and the hardened security context,
// and the peer URLs and NetworkPolicies must match the calls the parts' mains make.
//
// kubectl (kustomize) must be on the PATH in CI. helm is optional: where it is missing (Debian has
// no package) the chart is checked without rendering: values against values.schema.json, the
// templates' references, and its call graph against the code. Install helm to run its lint and template too.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import ts from 'typescript';
import { isMap, parse, parseAllDocuments, parseDocument, type YAMLMap } from 'yaml';
import { projectPath } from '../services/shared/index.js';

// ---------------------------------------------------------------------------------------------
// What the code says

/** A parsed manifest or values file: loosely typed on purpose, the schemas are the judges. */
type Obj = Record<string, any>;

const GATEWAY = 'gateway';
/** The parts with their own Deployment, from the source tree. */
const SERVICE_PARTS = readdirSync(projectPath('services'))
  .filter((d) => d !== 'all-in-one' && d !== 'shared' && existsSync(projectPath('services', d, 'main.ts')))
  .sort();
const PARTS = [GATEWAY, ...SERVICE_PARTS];

/** The call graph the deployment is designed for (issue 7). */
const DESIGNED_CALLS: Record<string, string[]> = {
  gateway: ['payments', 'routing-risk', 'ledger', 'payouts', 'webhooks'],
  payments: ['routing-risk'],
  payouts: ['routing-risk', 'ledger'],
};

/** Peers a part's main reads (config.peers.x / config.peers['x'] / runServicePart(PART, [...])). */
function peersInCode(mainFile: string): string[] {
  const source = readFileSync(projectPath(mainFile), 'utf8');
  const found = new Set<string>();
  for (const m of source.matchAll(/peers(?:\.([a-z]+)|\[\s*'([a-z-]+)'\s*\])/g)) found.add(m[1] ?? m[2]);
  const required = /runServicePart\(\s*PART\s*,\s*\[([^\]]*)\]/.exec(source);
  for (const m of required?.[1].matchAll(/'([a-z-]+)'/g) ?? []) found.add(m[1]);
  return [...found];
}

/** What each part calls: the design plus anything the code has started to call since. */
const CALLS: Record<string, string[]> = Object.fromEntries(
  PARTS.map((part) => {
    const main = part === GATEWAY ? 'gateway/main.ts' : `services/${part}/main.ts`;
    return [part, [...new Set([...(DESIGNED_CALLS[part] ?? []), ...peersInCode(main)])].sort()];
  }),
);
const callersOf = (part: string) => PARTS.filter((p) => CALLS[p].includes(part));
const peerVariable = (part: string) => `${part.toUpperCase().replace('-', '_')}_URL`;

// ---------------------------------------------------------------------------------------------
// Tools

/** Whether the command can be started at all (its exit code does not matter here). */
function onPath(command: string, ...args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).error === undefined;
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { cwd: projectPath(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

function parseManifests(text: string, label: string): Obj[] {
  return parseAllDocuments(text).flatMap((doc) => {
    assert.deepEqual(doc.errors, [], `${label}: rendered YAML does not parse`);
    const value = doc.toJS() as Obj | null;
    return value ? [value] : [];
  });
}

const describe = (o: Obj) => `${o.kind}/${o.metadata?.name}`;

// ---------------------------------------------------------------------------------------------
// Validation against the Kubernetes schemas

/** kubernetes-models' module of a kind, e.g. apps/v1 Deployment -> kubernetes-models/apps/v1/Deployment. */
const modelModule = (o: Obj) => `kubernetes-models/${o.apiVersion}/${o.kind}`;

async function validateAgainstKubernetes(objects: Obj[], label: string): Promise<void> {
  for (const o of objects) {
    assert.ok(typeof o.apiVersion === 'string' && typeof o.kind === 'string', `${label}: object without apiVersion/kind`);
    let Model: new (data: Obj) => { validate(): void };
    try {
      Model = (await import(modelModule(o)))[o.kind];
    } catch {
      assert.fail(`${label}: ${describe(o)}: no Kubernetes schema for ${o.apiVersion} ${o.kind}`);
    }
    try {
      new Model(o).validate();
    } catch (err) {
      assert.fail(`${label}: ${describe(o)} does not match the Kubernetes schema: ${(err as Error).message}`);
    }
  }
  // The schemas accept unknown fields; TypeScript's excess-property check does not.
  const file = projectPath('test', '__rendered_manifests__.ts');
  const lines = objects.map((o, i) => `import type { I${o.kind} as T${i} } from '${modelModule(o)}';`);
  const firstObjectLine = lines.length;
  objects.forEach((o, i) => lines.push(`export const o${i}: T${i} = ${JSON.stringify(o)};`));
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true, noEmit: true, skipLibCheck: true, types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
  host.fileExists = (name) => name === file || fileExists(name);
  const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram([file], options, host));
  const problems = diagnostics.map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const where = line >= firstObjectLine ? describe(objects[line - firstObjectLine]) : 'imports';
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
  assert.deepEqual(problems, [], `${label}: fields the Kubernetes API does not know`);
}

// ---------------------------------------------------------------------------------------------
// What every install must have

const byKind = (objects: Obj[], kind: string) => objects.filter((o) => o.kind === kind);
const component = (o: Obj) => o.metadata?.labels?.['app.kubernetes.io/component'] as string | undefined;
const matches = (selector: Obj | undefined, labels: Obj) =>
  Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels?.[k] === v);

function assertHardenedPod(o: Obj, label: string): void {
  const pod = o.spec.template.spec;
  const where = `${label}: ${describe(o)}`;
  assert.equal(pod.securityContext?.runAsNonRoot, true, `${where}: pod runAsNonRoot`);
  assert.equal(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault', `${where}: pod seccomp RuntimeDefault`);
  assert.equal(pod.automountServiceAccountToken, false, `${where}: no service account token`);
  assert.ok(pod.containers.length > 0, `${where}: containers`);
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
    const at = `${where} container ${c.name}`;
    const sc = c.securityContext ?? {};
    assert.equal(sc.allowPrivilegeEscalation, false, `${at}: allowPrivilegeEscalation false`);
    assert.equal(sc.readOnlyRootFilesystem, true, `${at}: readOnlyRootFilesystem`);
    assert.equal(sc.runAsNonRoot ?? pod.securityContext.runAsNonRoot, true, `${at}: runAsNonRoot`);
    assert.ok(sc.capabilities?.drop?.includes('ALL'), `${at}: capabilities drop ALL`);
    assert.notEqual(sc.privileged, true, `${at}: not privileged`);
    assert.equal((sc.seccompProfile ?? pod.securityContext.seccompProfile)?.type, 'RuntimeDefault', `${at}: seccomp`);
    for (const kind of ['requests', 'limits']) {
      for (const resource of ['cpu', 'memory']) {
        assert.ok(c.resources?.[kind]?.[resource] !== undefined, `${at}: resources.${kind}.${resource}`);
      }
    }
    // A read-only root filesystem still needs a writable /tmp.
    const tmp = c.volumeMounts?.find((m: Obj) => m.mountPath === '/tmp');
    assert.ok(tmp && pod.volumes?.some((v: Obj) => v.name === tmp.name && v.emptyDir), `${at}: /tmp emptyDir`);
  }
}

function env(container: Obj): Record<string, Obj> {
  return Object.fromEntries((container.env ?? []).map((e: Obj) => [e.name, e]));
}

function assertProbes(deployment: Obj, part: string, label: string): void {
  const c = deployment.spec.template.spec.containers[0];
  const where = `${label}: ${describe(deployment)}`;
  for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
    assert.ok(c[probe], `${where}: ${probe}`);
    if (part === GATEWAY) {
      // The gateway has no health endpoint yet; /openapi.json needs no authentication.
      assert.deepEqual(c[probe].httpGet, { path: '/openapi.json', port: 'http' }, `${where}: ${probe} GET /openapi.json`);
    } else {
      const grpcPort = c.ports.find((p: Obj) => p.name === 'grpc')?.containerPort;
      assert.ok(grpcPort, `${where}: a port named grpc`);
      assert.deepEqual(c[probe].grpc, { port: grpcPort }, `${where}: ${probe} is a native gRPC probe on the gRPC port`);
      assert.equal(env(c).GRPC_PORT?.value, String(grpcPort), `${where}: GRPC_PORT is the probed port`);
    }
  }
  if (part === GATEWAY) {
    assert.equal(c.ports.find((p: Obj) => p.name === 'http')?.containerPort, 8080, `${where}: http port 8080`);
    assert.equal(env(c).PORT?.value, '8080', `${where}: PORT`);
  }
}

interface Port { number: number; name?: string; protocol: string }

/** Whether the policies that select `subject` let traffic from/to `peer` through on `port`. */
function policyAllows(policies: Obj[], direction: 'ingress' | 'egress', subject: Obj, peer: Obj | 'outside', port: Port): boolean {
  const type = direction === 'ingress' ? 'Ingress' : 'Egress';
  const selecting = policies.filter((p) => matches(p.spec.podSelector, subject) && (p.spec.policyTypes ?? ['Ingress']).includes(type));
  if (selecting.length === 0) return true;
  return selecting.some((p) => (p.spec[direction] ?? []).some((rule: Obj) => {
    const peers: Obj[] | undefined = rule[direction === 'ingress' ? 'from' : 'to'];
    // `outside`: another namespace or outside the cluster, i.e. a peer with a namespaceSelector or ipBlock.
    const peerOk = !peers?.length || peers.some((x) => peer === 'outside'
      ? Boolean(x.namespaceSelector || x.ipBlock)
      : Boolean(x.podSelector && !x.namespaceSelector && matches(x.podSelector, peer)));
    const portOk = !rule.ports?.length || rule.ports.some((x: Obj) =>
      (x.port === undefined || x.port === port.number || (port.name !== undefined && x.port === port.name)) &&
      (x.protocol ?? 'TCP') === port.protocol);
    return peerOk && portOk;
  }));
}

/** Every part is installed completely, wired to the peers it calls, and fenced by NetworkPolicies. */
function assertInstall(objects: Obj[], label: string): void {
  const deployments = byKind(objects, 'Deployment');
  assert.deepEqual(deployments.map(component).sort(), [...PARTS].sort(), `${label}: one Deployment per part`);
  const podLabels = (part: string) => deployments.find((d) => component(d) === part)!.spec.template.metadata.labels;
  const servicePort = (part: string) => {
    const ports = deployments.find((d) => component(d) === part)!.spec.template.spec.containers[0].ports as Obj[];
    const p = ports.find((x) => x.name === (part === GATEWAY ? 'http' : 'grpc'))!;
    return { number: p.containerPort, name: p.name, protocol: p.protocol ?? 'TCP' };
  };
  const policies = byKind(objects, 'NetworkPolicy');
  const image = deployments[0].spec.template.spec.containers[0].image;

  for (const d of deployments) {
    const part = component(d)!;
    const where = `${label}: ${describe(d)}`;
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    assert.ok(matches(d.spec.selector, d.spec.template.metadata.labels), `${where}: selector matches its pods`);
    assert.deepEqual(c.args, [part], `${where}: runs its part through the entrypoint`);
    assert.equal(c.image, image, `${where}: the one image`);
    assertHardenedPod(d, label);
    assertProbes(d, part, label);
    assert.equal(pod.enableServiceLinks, false, `${where}: no service-link variables`);

    const vars = env(c);
    for (const name of ['DATABASE_URL', 'NATS_URL', ...(part === GATEWAY ? ['OPERATOR_TOKEN'] : [])]) {
      assert.ok(vars[name]?.valueFrom?.secretKeyRef?.key === name, `${where}: ${name} from a Secret`);
    }
    for (const peer of CALLS[part]) {
      const service = byKind(objects, 'Service').find((s) => matches({ matchLabels: s.spec.selector }, podLabels(peer)));
      assert.ok(service, `${label}: a Service for ${peer}`);
      const port = service.spec.ports.find((p: Obj) => p.targetPort === 'grpc')?.port;
      const url = new URL(vars[peerVariable(peer)]?.value ?? 'http://missing');
      assert.equal(url.hostname.split('.')[0], service.metadata.name, `${where}: ${peerVariable(peer)} names ${peer}'s Service`);
      assert.equal(Number(url.port), port, `${where}: ${peerVariable(peer)} uses ${peer}'s gRPC port`);
    }

    const sa = byKind(objects, 'ServiceAccount').find((s) => s.metadata.name === pod.serviceAccountName);
    assert.ok(sa, `${where}: its ServiceAccount`);
    assert.equal(component(sa), part, `${where}: a ServiceAccount of its own`);
    const services = byKind(objects, 'Service').filter((s) => matches({ matchLabels: s.spec.selector }, d.spec.template.metadata.labels));
    assert.equal(services.length, 1, `${where}: one Service`);
    const hpa = byKind(objects, 'HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === d.metadata.name);
    assert.ok(hpa || d.spec.replicas, `${where}: an autoscaler or a replica count`);
    if (hpa) assert.equal(d.spec.replicas, undefined, `${where}: no replicas beside its autoscaler`);
    const pdb = byKind(objects, 'PodDisruptionBudget').find((p) => matches(p.spec.selector, d.spec.template.metadata.labels));
    assert.ok(pdb || !hpa, `${where}: a PodDisruptionBudget`);

    // NetworkPolicies: who may call this part, and what it may reach.
    assert.ok(policies.some((p) => matches(p.spec.podSelector, podLabels(part))), `${where}: a NetworkPolicy`);
    if (part === GATEWAY) {
      assert.ok(policyAllows(policies, 'ingress', podLabels(part), 'outside', servicePort(part)), `${label}: the gateway is reachable from outside`);
    } else {
      assert.ok(!policyAllows(policies, 'ingress', podLabels(part), 'outside', servicePort(part)), `${label}: ${part} is not reachable from outside`);
    }
    // Nothing calls the gateway; a service takes calls from its callers only.
    for (const other of part === GATEWAY ? [] : PARTS.filter((p) => p !== part)) {
      const allowed = policyAllows(policies, 'ingress', podLabels(part), podLabels(other), servicePort(part));
      const expected = CALLS[other].includes(part);
      assert.equal(allowed, expected, `${label}: ${other} ${expected ? 'may' : 'may not'} reach ${part}`);
    }
    for (const peer of CALLS[part]) {
      assert.ok(policyAllows(policies, 'egress', podLabels(part), podLabels(peer), servicePort(peer)), `${label}: ${part} may call ${peer}`);
    }
    for (const [what, port] of [['Postgres', 5432], ['NATS', 4222]] as const) {
      assert.ok(policyAllows(policies, 'egress', podLabels(part), 'outside', { number: port, protocol: 'TCP' }), `${label}: ${part} reaches ${what}`);
    }
    assert.ok(policyAllows(policies, 'egress', podLabels(part), 'outside', { number: 53, protocol: 'UDP' }), `${label}: ${part} reaches DNS`);
  }

  const jobs = byKind(objects, 'Job');
  assert.equal(jobs.length, 1, `${label}: one migration Job`);
  assert.deepEqual(jobs[0].spec.template.spec.containers[0].args, ['migrate'], `${label}: the Job migrates`);
  assert.equal(jobs[0].spec.template.spec.containers[0].image, image, `${label}: the Job runs the parts' image`);
  assertHardenedPod(jobs[0], label);
}

// ---------------------------------------------------------------------------------------------
// The image

test('the Dockerfile builds every part into one non-root image in stages', () => {
  const dockerfile = readFileSync(projectPath('deploy', 'Dockerfile'), 'utf8');
  const instructions = dockerfile.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: string[][] = [];
  for (const line of instructions) {
    if (/^FROM\s/i.test(line)) stages.push([]);
    stages.at(-1)?.push(line);
  }
  assert.ok(stages.length >= 2, 'multi-stage');
  const runtime = stages.at(-1)!;
  const build = stages.find((s) => s.some((l) => /npm run build/.test(l)));
  assert.ok(build && build !== runtime, 'a build stage runs `npm run build`');
  assert.ok(build.some((l) => /^RUN npm ci\b.*--ignore-scripts/.test(l)), 'the build stage installs with npm ci (no prepare before the sources)');
  const prodInstall = stages.flat().find((l) => /^RUN npm ci\b.*--omit=dev/.test(l));
  assert.ok(prodInstall && /--ignore-scripts/.test(prodInstall), 'production dependencies only, without install scripts');
  assert.ok(runtime.some((l) => /^COPY --from=/.test(l)), 'the runtime stage copies from the others');
  assert.match(instructions.find((l) => /^ARG NODE_IMAGE=/.test(l)) ?? runtime[0], /node:20[-.\w]*(slim|alpine)/, 'node 20, slim or alpine');
  const user = runtime.filter((l) => /^USER\s/i.test(l)).at(-1);
  assert.ok(user, 'the runtime stage sets USER');
  assert.match(user, /^USER\s+[1-9]\d*(:\d+)?$/, 'a numeric, non-root user (Kubernetes checks runAsNonRoot by number)');
  assert.match(runtime.find((l) => /^ENTRYPOINT/.test(l)) ?? '', /deploy\/entrypoint\.sh/, 'the entrypoint script');

  const ignored = readFileSync(projectPath('.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
  for (const path of ['node_modules', '.git', '.data', 'dist']) assert.ok(ignored.includes(path), `.dockerignore leaves out ${path}`);
});

test('the entrypoint starts every part and the migrations, and refuses anything else', () => {
  const entrypoint = projectPath('deploy', 'entrypoint.sh');
  // The Dockerfile's exec-form ENTRYPOINT runs it directly: git must keep it executable.
  assert.ok(statSync(entrypoint).mode & 0o111, 'deploy/entrypoint.sh is executable');
  // Without DATABASE_URL each part's own main stops with exit 78 naming it: proof it was reached.
  for (const part of [...PARTS, 'migrate']) {
    const result = spawnSync('sh', [entrypoint, part], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(result.status, 78, `${part}: ${result.stderr}`);
    assert.match(result.stderr, /DATABASE_URL/, part);
  }
  for (const args of [[], ['all-in-one'], ['nonsense']]) {
    const result = spawnSync('sh', [entrypoint, ...args], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
    assert.equal(result.status, 64, `${args.join(' ') || 'no argument'} is a usage error`);
    assert.match(result.stderr, /usage/);
  }
});

// ---------------------------------------------------------------------------------------------
// Kustomize

const kubectl = onPath('kubectl', 'version', '--client');
const overlays = readdirSync(projectPath('deploy', 'overlays')).sort();

test('kubectl is available to render the kustomize overlays', { skip: !kubectl && !process.env.CI && 'kubectl is not on the PATH' }, () => {
  assert.ok(kubectl, 'kubectl (1.27+, with kustomize v5) must be on the PATH to check deploy/overlays; the machine image has it at /usr/bin/kubectl');
});

test('there are dev and production overlays', () => {
  assert.deepEqual(overlays, ['dev', 'production']);
});

for (const overlay of overlays) {
  test(`kustomize overlay ${overlay} renders a complete, valid, hardened install`, { skip: !kubectl && 'kubectl is not on the PATH' }, async () => {
    const label = `deploy/overlays/${overlay}`;
    const objects = parseManifests(run('kubectl', ['kustomize', label]), label);
    await validateAgainstKubernetes(objects, label);
    assertInstall(objects, label);
    const namespace = byKind(objects, 'Namespace')[0]?.metadata.name;
    assert.ok(namespace, `${label}: creates its namespace`);
    for (const o of objects.filter((x) => x.kind !== 'Namespace')) {
      assert.equal(o.metadata.namespace, namespace, `${label}: ${describe(o)} is in ${namespace}`);
    }
    assert.match(byKind(objects, 'Deployment')[0].spec.template.spec.containers[0].image, /:[\w.-]+$/, `${label}: a tagged image`);
  });
}

test('the kustomize base renders and validates on its own', { skip: !kubectl && 'kubectl is not on the PATH' }, async () => {
  const objects = parseManifests(run('kubectl', ['kustomize', 'deploy/base']), 'deploy/base');
  await validateAgainstKubernetes(objects, 'deploy/base');
  assertInstall(objects, 'deploy/base');
});

test('production is sized above dev', { skip: !kubectl && 'kubectl is not on the PATH' }, () => {
  const render = (o: string) => parseManifests(run('kubectl', ['kustomize', `deploy/overlays/${o}`]), o);
  const [dev, production] = [render('dev'), render('production')];
  const minReplicas = (objects: Obj[], part: string) =>
    byKind(objects, 'HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === `svc-${part}`)!.spec.minReplicas;
  for (const part of PARTS) {
    assert.ok(minReplicas(production, part) >= 2, `production: ${part} runs at least 2 replicas`);
    assert.ok(minReplicas(production, part) > minReplicas(dev, part), `production: more ${part} replicas than dev`);
  }
  for (const d of byKind(production, 'Deployment')) {
    assert.ok(d.spec.template.spec.topologySpreadConstraints?.length, `production: ${describe(d)} is spread over nodes`);
  }
});

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
