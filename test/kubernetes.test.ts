// Checks of what installs svc on Kubernetes: the image (deploy/Dockerfile, deploy/entrypoint.sh),
// the kustomize overlays (deploy/overlays/*); the Helm chart's checks are in helm-chart.test.ts.
//
// Rendered manifests are validated twice against the Kubernetes API schemas shipped by the
// kubernetes-models package: its JSON-schema validators (types, required fields, enums, formats)
// and, because the API's schemas allow unknown fields, a TypeScript excess-property check of every
// object against the package's type of its kind, so a misspelt field (`runAsNonroot`) fails too.
// Then every workload must have probes, requests and limits and the hardened security context,
// and the peer URLs and NetworkPolicies must match the calls the parts' mains make.
//
// kubectl (kustomize) must be on the PATH in CI; so must helm and promtool for the chart's checks
// (.ci/run fetches them with scripts/ci-tools.sh).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { projectPath } from '../services/platform/paths.js';
import {
  assertInstall, byKind, describe, parseManifests, PARTS, policyAllows, validateAgainstKubernetes, type Obj,
} from './helpers/kubernetes.js';
import { onPath, run, testWith } from './helpers/tools.js';

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

testWith({ kubectl }, 'the tracing overlay of deploy/README.md renders: every part exports to the collector and may reach it', async () => {
  const readme = readFileSync(projectPath('deploy', 'README.md'), 'utf8');
  const block = /^### Traces$[\s\S]*?```yaml\n([\s\S]*?)```/m.exec(readme);
  assert.ok(block, 'deploy/README.md "Traces" shows an overlay');
  const dir = mkdtempSync(join(tmpdir(), 'svc-traces-'));
  try {
    // Where the README's overlay would sit, beside production; kustomize takes no absolute bases.
    const production = relative(dir, projectPath('deploy', 'overlays', 'production'));
    writeFileSync(join(dir, 'kustomization.yaml'), block[1].replace('../production', production));
    const label = 'the tracing overlay';
    const objects = parseManifests(run('kubectl', ['kustomize', dir]), label);
    await validateAgainstKubernetes(objects, label);
    assertInstall(objects, label);
    const endpoint = byKind(objects, 'ConfigMap').find((m) => m.metadata.name.startsWith('svc-config'))?.data.OTEL_EXPORTER_OTLP_ENDPOINT;
    assert.ok(endpoint, `${label}: OTEL_EXPORTER_OTLP_ENDPOINT in svc-config`);
    const port = { number: Number(new URL(endpoint).port), protocol: 'TCP' };
    const policies = byKind(objects, 'NetworkPolicy');
    for (const d of byKind(objects, 'Deployment')) {
      assert.ok(d.spec.template.spec.containers[0].envFrom.some((e: Obj) => e.configMapRef?.name === 'svc-config' || e.configMapRef?.name.startsWith('svc-config-')),
        `${label}: ${describe(d)} reads svc-config`);
      assert.ok(policyAllows(policies, 'egress', d.spec.template.metadata.labels, 'outside', port), `${label}: ${describe(d)} reaches the collector`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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

