// What the Kubernetes checks share: the call graph the code makes, rendering and parsing
// manifests, validation against the Kubernetes API schemas (kubernetes-models), and what every
// install (kustomize overlay or Helm chart) must have.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { projectPath } from '../../services/platform/paths.js';

// ---------------------------------------------------------------------------------------------
// What the code says

/** A parsed manifest or values file: loosely typed on purpose, the schemas are the judges. */
export type Obj = Record<string, any>;

export const GATEWAY = 'gateway';
/** The parts with their own Deployment, from the source tree. */
export const SERVICE_PARTS = readdirSync(projectPath('services'))
  .filter((d) => d !== 'platform' && d !== 'contract' && existsSync(projectPath('services', d, 'main.ts')))
  .sort();
export const PARTS = [GATEWAY, ...SERVICE_PARTS];

/** The call graph the deployment is designed for. */
export const DESIGNED_CALLS: Record<string, string[]> = {
  gateway: ['payments', 'routing-risk', 'ledger', 'payouts', 'webhooks'],
  payments: ['routing-risk', 'ledger'],
  payouts: ['routing-risk', 'ledger', 'payments'],
};

/** Peers a part's main reads (config.peers.x / config.peers['x'] / runServicePart(PART, [...])). */
export function peersInCode(mainFile: string): string[] {
  const source = readFileSync(projectPath(mainFile), 'utf8');
  const found = new Set<string>();
  for (const m of source.matchAll(/peers(?:\.([a-z]+)|\[\s*'([a-z-]+)'\s*\])/g)) found.add(m[1] ?? m[2]);
  const required = /runServicePart\(\s*PART\s*,\s*\[([^\]]*)\]/.exec(source);
  for (const m of required?.[1].matchAll(/'([a-z-]+)'/g) ?? []) found.add(m[1]);
  return [...found];
}

/** What each part calls: the design plus anything the code has started to call since. */
export const CALLS: Record<string, string[]> = Object.fromEntries(
  PARTS.map((part) => {
    const main = part === GATEWAY ? 'gateway/main.ts' : `services/${part}/main.ts`;
    return [part, [...new Set([...(DESIGNED_CALLS[part] ?? []), ...peersInCode(main)])].sort()];
  }),
);
export const callersOf = (part: string) => PARTS.filter((p) => CALLS[p].includes(part));
export const peerVariable = (part: string) => `${part.toUpperCase().replace('-', '_')}_URL`;

// ---------------------------------------------------------------------------------------------
// Manifests

export function parseManifests(text: string, label: string): Obj[] {
  return parseAllDocuments(text).flatMap((doc) => {
    assert.deepEqual(doc.errors, [], `${label}: rendered YAML does not parse`);
    const value = doc.toJS() as Obj | null;
    return value ? [value] : [];
  });
}

export const describe = (o: Obj) => `${o.kind}/${o.metadata?.name}`;

// ---------------------------------------------------------------------------------------------
// Validation against the Kubernetes schemas

/** kubernetes-models' module of a kind, e.g. apps/v1 Deployment -> kubernetes-models/apps/v1/Deployment. */
export const modelModule = (o: Obj) => `kubernetes-models/${o.apiVersion}/${o.kind}`;

export async function validateAgainstKubernetes(objects: Obj[], label: string): Promise<void> {
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

export const byKind = (objects: Obj[], kind: string) => objects.filter((o) => o.kind === kind);
export const component = (o: Obj) => o.metadata?.labels?.['app.kubernetes.io/component'] as string | undefined;
export const matches = (selector: Obj | undefined, labels: Obj) =>
  Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels?.[k] === v);

export function assertHardenedPod(o: Obj, label: string): void {
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

export function env(container: Obj): Record<string, Obj> {
  return Object.fromEntries((container.env ?? []).map((e: Obj) => [e.name, e]));
}

export function assertProbes(deployment: Obj, part: string, label: string): void {
  const c = deployment.spec.template.spec.containers[0];
  const where = `${label}: ${describe(deployment)}`;
  for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
    assert.ok(c[probe], `${where}: ${probe}`);
    if (part === GATEWAY) {
      // Ready while Postgres and the parts answer; alive (and started) while the process answers.
      const path = probe === 'readinessProbe' ? '/readyz' : '/healthz';
      assert.deepEqual(c[probe].httpGet, { path, port: 'http' }, `${where}: ${probe} GET ${path}`);
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

export interface Port { number: number; name?: string; protocol: string }

/** Whether the policies that select `subject` let traffic from/to `peer` through on `port`. */
export function policyAllows(policies: Obj[], direction: 'ingress' | 'egress', subject: Obj, peer: Obj | 'outside', port: Port): boolean {
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

/** A variable of the container: its own env, or a ConfigMap of the install it takes with envFrom. */
function envValue(objects: Obj[], container: Obj, name: string): string | undefined {
  const own = env(container)[name];
  if (own) return own.value;
  for (const from of container.envFrom ?? []) {
    const map = byKind(objects, 'ConfigMap').find((m) => m.metadata.name === from.configMapRef?.name
      || m.metadata.name.startsWith(`${from.configMapRef?.name}-`));
    if (map?.data?.[name] !== undefined) return map.data[name];
  }
  return undefined;
}

/** The part serves GET /metrics on METRICS_PORT, a port named `metrics` that its Service exposes and its NetworkPolicy admits scrapes on (and only on it). */
function assertMetricsPort(objects: Obj[], d: Obj, policies: Obj[], label: string): void {
  const where = `${label}: ${describe(d)}`;
  const c = d.spec.template.spec.containers[0];
  const port = (c.ports as Obj[]).find((p) => p.name === 'metrics');
  assert.ok(port, `${where}: a port named metrics`);
  assert.equal(envValue(objects, c, 'METRICS_PORT'), String(port.containerPort), `${where}: METRICS_PORT is the metrics port`);
  const service = byKind(objects, 'Service').find((s) => matches({ matchLabels: s.spec.selector }, d.spec.template.metadata.labels));
  assert.ok(service?.spec.ports.some((p: Obj) => p.targetPort === 'metrics' && p.name === 'metrics'), `${where}: its Service exposes metrics`);
  const metrics = { number: port.containerPort, name: 'metrics', protocol: 'TCP' };
  if (policies.length) {
    assert.ok(policyAllows(policies, 'ingress', d.spec.template.metadata.labels, 'outside', metrics), `${where}: Prometheus may scrape it`);
  }
}

/** Every part is installed completely, wired to the peers it calls, and fenced by NetworkPolicies. */
export function assertInstall(objects: Obj[], label: string): void {
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
    for (const name of ['DATABASE_URL', 'NATS_URL', 'INTERNAL_TOKEN', ...(part === GATEWAY ? ['OPERATOR_TOKEN'] : [])]) {
      assert.ok(vars[name]?.valueFrom?.secretKeyRef?.key === name, `${where}: ${name} from a Secret`);
    }
    // A part admits other internal callers only as the Secret lists them, if it does.
    if (part !== GATEWAY) {
      const callers = vars.INTERNAL_CALLERS?.valueFrom?.secretKeyRef;
      assert.ok(callers?.key === 'INTERNAL_CALLERS' && callers.optional === true, `${where}: INTERNAL_CALLERS from a Secret, optional`);
    }
    for (const peer of CALLS[part]) {
      const service = byKind(objects, 'Service').find((s) => matches({ matchLabels: s.spec.selector }, podLabels(peer)));
      assert.ok(service, `${label}: a Service for ${peer}`);
      const port = service.spec.ports.find((p: Obj) => p.targetPort === 'grpc')?.port;
      const url = new URL(vars[peerVariable(peer)]?.value ?? 'http://missing');
      assert.equal(url.hostname.split('.')[0], service.metadata.name, `${where}: ${peerVariable(peer)} names ${peer}'s Service`);
      assert.equal(Number(url.port), port, `${where}: ${peerVariable(peer)} uses ${peer}'s gRPC port`);
    }

    assertMetricsPort(objects, d, policies, label);

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

