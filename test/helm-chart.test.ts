// The Helm chart (helm/): values against values.schema.json, every value documented, templates
// that reference only what exists, the parts wired as the code calls them; helm lint and helm
// template rendered and validated like the kustomize overlays, monitoring off and on; the alert
// rules and dashboard queries through promtool. helm and promtool are required in CI (.ci/run);
// elsewhere what needs them runs where they are on the PATH.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { isMap, parse, parseDocument, stringify, type YAMLMap } from 'yaml';
import { projectPath } from '../services/platform/paths.js';
import {
  assertInstall, byKind, CALLS, callersOf, component, describe, GATEWAY, matches, parseManifests, PARTS, policyAllows,
  SERVICE_PARTS, validateAgainstKubernetes, type Obj,
} from './helpers/kubernetes.js';
import { definedSeries, seriesNamesIn } from './helpers/metric-names.js';
import { onPath, run, testWith } from './helpers/tools.js';

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
  ['METRICS_PORT in plain env', { secrets: { existingSecret: 'svc' }, env: { METRICS_PORT: '9000' } }],
  ['a metrics port of 0', { secrets: { existingSecret: 'svc' }, metrics: { port: 0 } }],
  ['a misspelt monitoring switch', { secrets: { existingSecret: 'svc' }, metrics: { serviceMonitor: { enable: true } } }],
  ['an OTLP endpoint that is not an http(s) URL', { secrets: { existingSecret: 'svc' }, otel: { endpoint: 'otel-collector:4318' } }],
  ['OTEL_EXPORTER_OTLP_ENDPOINT in plain env', { secrets: { existingSecret: 'svc' }, env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' } }],
  ['an OTLP protocol the parts do not speak', { secrets: { existingSecret: 'svc' }, otel: { endpoint: 'http://c:4318', protocol: 'thrift' } }],
  ['SMTP_PASSWORD in plain env', { secrets: { existingSecret: 'svc' }, env: { SMTP_PASSWORD: 'hunter2hunter2' } }],
  ['an SMTP port of 0', { secrets: { existingSecret: 'svc' }, mail: { smtpHost: 'smtp.example.com', smtpPort: 0 } }],
  ['OTEL_EXPORTER_OTLP_PROTOCOL in plain env', { secrets: { existingSecret: 'svc' }, env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' } }],
  ['NATS_STREAM_REPLICAS in plain env (nats.streamReplicas sets it)', { secrets: { existingSecret: 'svc' }, env: { NATS_STREAM_REPLICAS: '3' } }],
  ['no stream replicas', { secrets: { existingSecret: 'svc' }, nats: { stream: 'S', subjectPrefix: 'svc.events', streamReplicas: 0 } }],
  ['a NATS seed that is not nats:// or tls://', {
    secrets: {
      databaseUrl: 'postgres://db/svc', natsUrl: 'nats://a:4222,http://b:4222', operatorToken: 'o'.repeat(32), internalToken: 'i'.repeat(32),
    },
  }],
  ['START_TIMEOUT_MS in plain env (it follows the startup probe)', { secrets: { existingSecret: 'svc' }, env: { START_TIMEOUT_MS: '5000' } }],
];

test('the chart has its metadata', () => {
  const chart = parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as Obj;
  assert.equal(chart.apiVersion, 'v2');
  assert.equal(chart.name, 'svc');
  assert.match(chart.version, /^\d+\.\d+\.\d+/);
  const pkg = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as Obj;
  assert.equal(chart.appVersion, pkg.version, 'appVersion is the package version (the default image tag)');
  for (const t of ['_helpers.tpl', 'NOTES.txt', 'deployments.yaml', 'services.yaml', 'serviceaccounts.yaml', 'hpa.yaml', 'pdb.yaml',
    'networkpolicies.yaml', 'ingress.yaml', 'secret.yaml', 'migration-job.yaml', 'servicemonitor.yaml', 'prometheusrule.yaml',
    'grafana-dashboard.yaml']) {
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
  for (const needed of ['port-forward', 'SVC_URL', 'SVC_OPERATOR_TOKEN', 'node bin/svc.js merchant create', 'node bin/svc.js key create']) {
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

// ---------------------------------------------------------------------------------------------
// Metrics, alerts and the dashboard

const rules = parse(readFileSync(join(chartDir, 'files', 'prometheus-rules.yaml'), 'utf8')) as { groups: Obj[] };
const dashboard = JSON.parse(readFileSync(join(chartDir, 'files', 'grafana-dashboard.json'), 'utf8')) as Obj;
const alerts: Obj[] = rules.groups.flatMap((g) => g.rules).filter((r: Obj) => r.alert);
const operations = readFileSync(projectPath('docs', 'operations.md'), 'utf8');
const template = (name: string) => readFileSync(join(chartDir, 'templates', name), 'utf8');

/** Every PromQL expression of the dashboard: its panels' targets (rows included) and its variables' queries. */
function dashboardQueries(): Array<{ where: string; expr: string }> {
  const panels = (list: Obj[]): Obj[] => list.flatMap((p) => [p, ...panels(p.panels ?? [])]);
  return [
    ...panels(dashboard.panels).flatMap((p) => (p.targets ?? []).map((t: Obj) => ({ where: `panel "${p.title}"`, expr: t.expr }))),
    ...dashboard.templating.list.filter((v: Obj) => v.type === 'query')
      .map((v: Obj) => ({ where: `variable ${v.name}`, expr: typeof v.query === 'string' ? v.query : v.query.query })),
  ];
}

/** Names in `exprs` that no series of the code matches. */
function undefinedNames(exprs: Array<{ where: string; expr: string }>): string[] {
  const series = definedSeries();
  return exprs.flatMap(({ where, expr }) => seriesNamesIn(expr)
    .filter((name) => !series.some((s) => s.pattern.test(name))).map((name) => `${where}: ${name}`));
}

test('the series names are read from the code, and a made-up one is caught', () => {
  // A guard on the guard: the extraction sees the definitions of each part, built names included.
  const series = definedSeries();
  for (const name of ['svc_payments_total', 'svc_provider_call_duration_seconds_bucket', 'svc_outbox_parked_events',
    'svc_webhook_exhausted_total', 'svc_http_requests_total', 'svc_grpc_client_calls_total']) {
    assert.ok(series.some((s) => s.pattern.test(name)), `${name} is defined in the code`);
  }
  assert.deepEqual(seriesNamesIn('sum by (provider) (rate(svc_provider_calls_total{outcome=~"a|b"}[5m])) / on (x) group_left (y) svc_x > 0.1'),
    ['svc_provider_calls_total', 'svc_x']);
  assert.deepEqual(seriesNamesIn('label_values(svc_http_requests_total, namespace)'), ['svc_http_requests_total']);
  assert.deepEqual(undefinedNames([{ where: 'made up', expr: 'rate(svc_made_up_total[5m]) > 0 and up == 1' }]),
    ['made up: svc_made_up_total', 'made up: up']);
});

test('the alert rules parse and name only series the code defines', () => {
  assert.ok(alerts.length >= 7, 'the alerts');
  const names = alerts.map((a) => a.alert);
  assert.equal(new Set(names).size, names.length, 'alert names are unique');
  for (const a of alerts) {
    assert.match(a.alert, /^Svc[A-Z]\w+$/, `${a.alert}: named Svc…`);
    assert.ok(typeof a.expr === 'string' && seriesNamesIn(a.expr).length > 0, `${a.alert}: an expression over series`);
    assert.match(a.labels?.severity ?? '', /^(warning|critical)$/, `${a.alert}: a severity`);
    assert.ok(a.annotations?.summary && a.annotations?.description, `${a.alert}: summary and description`);
    assert.equal(a.annotations.runbook, `docs/operations.md#${a.alert.toLowerCase()}`, `${a.alert}: its runbook's address`);
    if (a.for !== undefined) assert.match(a.for, /^\d+[smh]$/, `${a.alert}: a duration in for`);
  }
  assert.deepEqual(undefinedNames(alerts.map((a) => ({ where: a.alert, expr: a.expr }))), [], 'series the code does not define');
  // The list, where a series exists for it.
  const covered = (metric: string) => alerts.some((a) => seriesNamesIn(a.expr).some((n) => n.startsWith(metric)));
  for (const metric of ['svc_provider_calls_total', 'svc_payment_failovers_total', 'svc_http_requests_total', 'svc_http_request_duration_seconds',
    'svc_outbox_oldest_unpublished_age_seconds', 'svc_outbox_parked_events', 'svc_webhook_exhausted_total', 'svc_consumer_pending']) {
    assert.ok(covered(metric), `an alert on ${metric}`);
  }
});

test('every alert has a runbook paragraph in docs/operations.md', () => {
  const section = operations.split(/^## Alerts$/m)[1]?.split(/^## /m)[0];
  assert.ok(section, 'docs/operations.md has an "Alerts" section');
  const runbooks = Object.fromEntries(section.split(/^### /m).slice(1).map((part) => {
    const [title, ...body] = part.split('\n');
    return [title.trim(), body.join('\n')];
  }));
  for (const a of alerts) {
    const body = runbooks[a.alert];
    assert.ok(body, `a runbook headed "### ${a.alert}"`);
    for (const part of ['**Means:**', '**Check:**', '**Do:**']) assert.ok(body.includes(part), `${a.alert}: the runbook says ${part}`);
  }
  assert.deepEqual(Object.keys(runbooks).filter((t) => !alerts.some((a) => a.alert === t)), [], 'runbooks without an alert');
});

test('the Grafana dashboard parses, has its three sections, and names only series the code defines', () => {
  assert.ok(dashboard.uid && dashboard.title, 'uid and title');
  const rows = dashboard.panels.filter((p: Obj) => p.type === 'row').map((p: Obj) => p.title);
  for (const row of ['Payment funnel', 'Provider health', 'Webhook health']) assert.ok(rows.includes(row), `a "${row}" row`);
  const queries = dashboardQueries();
  assert.ok(queries.length >= 10, 'panels with queries');
  for (const q of queries) assert.ok(seriesNamesIn(q.expr).length > 0, `${q.where}: queries a series`);
  assert.deepEqual(undefinedNames(queries), [], 'series the code does not define');
  const ids = dashboard.panels.map((p: Obj) => p.id);
  assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
  for (const p of dashboard.panels.filter((x: Obj) => x.type !== 'row')) {
    assert.equal(p.datasource?.uid, '${datasource}', `panel "${p.title}": the dashboard's data source variable`);
  }
});

test('every part serves metrics on its metrics port; the monitoring objects are switched off by default', () => {
  assert.equal(defaults.metrics.port, 9464, 'metrics.port defaults to 9464');
  for (const key of ['serviceMonitor', 'prometheusRule', 'grafanaDashboard']) {
    assert.equal(defaults.metrics[key].enabled, false, `metrics.${key}.enabled defaults to false`);
  }
  // Without rendering: each object's template is wrapped in its switch, and loads the files checked above.
  const switched: Array<[string, string, string | undefined]> = [
    ['servicemonitor.yaml', 'serviceMonitor', undefined],
    ['prometheusrule.yaml', 'prometheusRule', 'files/prometheus-rules.yaml'],
    ['grafana-dashboard.yaml', 'grafanaDashboard', 'files/grafana-dashboard.json'],
  ];
  for (const [file, key, loads] of switched) {
    const text = template(file);
    const actions = [...text.matchAll(/\{\{-?\s*([^}]*?)\s*-?\}\}/g)].map((m) => m[1]).filter((a) => !a.startsWith('/*'));
    assert.equal(actions[0], `if .Values.metrics.${key}.enabled`, `${file}: everything is inside its switch`);
    assert.equal(actions.at(-1), 'end', `${file}: … to the end`);
    if (loads) assert.ok(text.includes(`.Files.Get "${loads}"`), `${file}: loads ${loads}`);
  }
  assert.match(template('servicemonitor.yaml'), /apiVersion: monitoring\.coreos\.com\/v1\s+kind: ServiceMonitor[\s\S]*- port: metrics/);
  assert.match(template('prometheusrule.yaml'), /apiVersion: monitoring\.coreos\.com\/v1\s+kind: PrometheusRule/);
  assert.match(template('grafana-dashboard.yaml'), /kind: ConfigMap[\s\S]*grafana_dashboard: "1"/);
  // The port: METRICS_PORT in every part's environment, a `metrics` port on its container and Service, admitted by its NetworkPolicy.
  assert.match(template('_helpers.tpl'), /- name: METRICS_PORT\n\s+value: \{\{ \$root\.Values\.metrics\.port \| quote \}\}/, 'svc.env sets METRICS_PORT');
  const envBlock = /define "svc\.env"([\s\S]*?)define "svc\.podSpecCommon"/.exec(template('_helpers.tpl'))![1];
  assert.ok(envBlock.indexOf('METRICS_PORT') < envBlock.indexOf('if eq .part "webhooks"'), 'METRICS_PORT is set for every part, not inside a part\'s branch');
  // Tracing: OTEL_EXPORTER_OTLP_ENDPOINT for every part, only when otel.endpoint is set.
  assert.match(envBlock, /\{\{- with \$root\.Values\.otel\.endpoint \}\}\n- name: OTEL_EXPORTER_OTLP_ENDPOINT\n\s+value: \{\{ \. \| quote \}\}\n\{\{- end \}\}/);
  assert.ok(envBlock.indexOf('OTEL_EXPORTER_OTLP_ENDPOINT') < envBlock.indexOf('if eq .part "webhooks"'), 'OTEL_EXPORTER_OTLP_ENDPOINT is set for every part');
  assert.equal(defaults.otel.endpoint, '', 'no tracing by default');
  // Start-up steps retry as long as the startup probe waits: the part exits naming its step before the kubelet kills it.
  assert.match(envBlock, /- name: START_TIMEOUT_MS\n\s+value: \{\{ mul \$root\.Values\.probes\.startup\.periodSeconds \$root\.Values\.probes\.startup\.failureThreshold 1000 \| quote \}\}/);
  assert.ok(envBlock.indexOf('START_TIMEOUT_MS') < envBlock.indexOf('if eq .part "webhooks"'), 'START_TIMEOUT_MS is set for every part');
  assert.equal(defaults.probes.startup.periodSeconds * defaults.probes.startup.failureThreshold * 1000, 120_000, 'the default budget is the parts\' default');
  assert.match(template('deployments.yaml'), /\{\{- end \}\}\n\s+- name: metrics\n\s+containerPort: \{\{ \$\.Values\.metrics\.port \}\}/, 'every container has the metrics port');
  assert.match(template('services.yaml'), /\{\{- end \}\}\n(.*\n)?\s+- name: metrics\n\s+port: \{\{ \$\.Values\.metrics\.port \}\}\n\s+targetPort: metrics/, 'every Service has it');
  assert.match(template('networkpolicies.yaml'), /\{\{- end \}\}\n(.*\n)?\s+- ports:\n\s+- port: metrics\n\s+protocol: TCP\n\s+\{\{- with \$\.Values\.metrics\.scrapeFrom \}\}/,
    'every part admits scrapes of the metrics port from metrics.scrapeFrom');
});

// ---------------------------------------------------------------------------------------------
// Rendered by Helm, checked by promtool (.ci/run fetches both: scripts/ci-tools.sh)

const promtool = onPath('promtool', '--version');
const MONITORING = ['serviceMonitor', 'prometheusRule', 'grafanaDashboard'];
const monitoringOn = MONITORING.flatMap((key) => ['--set', `metrics.${key}.enabled=true`]);
/** Kinds of the Prometheus Operator's CRDs, which kubernetes-models has no schema for: checked here instead. */
const isOperatorKind = (o: Obj) => o.apiVersion === 'monitoring.coreos.com/v1';

function render(file: string, extra: string[] = []): Obj[] {
  const args = ['template', 'svc', chartDir, '--namespace', 'svc', '-f', join(chartDir, 'ci', file), ...extra];
  return parseManifests(run('helm', args), `helm template -f ci/${file} ${extra.join(' ')}`.trim());
}

/** The ServiceMonitor scrapes every part's Service on its metrics port; the rules and dashboard are the files, unchanged. */
function assertMonitoring(objects: Obj[], label: string): void {
  const [monitor] = byKind(objects, 'ServiceMonitor');
  assert.ok(monitor, `${label}: a ServiceMonitor`);
  assert.deepEqual(monitor.spec.namespaceSelector, { matchNames: ['svc'] }, `${label}: the ServiceMonitor looks in the release's namespace`);
  assert.deepEqual(monitor.spec.endpoints.map((e: Obj) => e.port), ['metrics'], `${label}: it scrapes the metrics port`);
  const services = byKind(objects, 'Service');
  for (const part of PARTS) {
    const service = services.find((x) => component(x) === part);
    assert.ok(service && matches(monitor.spec.selector, service.metadata.labels), `${label}: the ServiceMonitor selects ${part}'s Service`);
    assert.ok(service.spec.ports.some((p: Obj) => p.name === 'metrics'), `${label}: ${part}'s Service has the metrics port`);
  }
  const [rule] = byKind(objects, 'PrometheusRule');
  assert.deepEqual(rule?.spec, rules, `${label}: the PrometheusRule holds files/prometheus-rules.yaml`);
  const map = byKind(objects, 'ConfigMap').find((m) => m.metadata.labels?.grafana_dashboard === '1');
  assert.deepEqual(JSON.parse(map?.data?.['svc-overview.json'] ?? 'null'), dashboard, `${label}: the ConfigMap holds files/grafana-dashboard.json`);
}

/** Every part exports traces to otel.endpoint over otel.protocol, each variable only when its value is set. */
function assertTraceExport(objects: Obj[], values: Obj, label: string): void {
  for (const d of byKind(objects, 'Deployment')) {
    const env: Obj[] = d.spec.template.spec.containers[0].env;
    const valueOf = (name: string) => env.find((e) => e.name === name)?.value;
    assert.equal(valueOf('OTEL_EXPORTER_OTLP_ENDPOINT'), values.otel.endpoint || undefined, `${label}: ${component(d)}'s endpoint`);
    assert.equal(valueOf('OTEL_EXPORTER_OTLP_PROTOCOL'), values.otel.protocol || undefined, `${label}: ${component(d)}'s protocol`);
  }
}

/** Every part makes the stream with nats.streamReplicas replicas, placed by nats.streamPlacement when it is set. */
function assertStreamSettings(objects: Obj[], values: Obj, label: string): void {
  const { streamReplicas, streamPlacement } = values.nats;
  for (const d of byKind(objects, 'Deployment')) {
    const env: Obj[] = d.spec.template.spec.containers[0].env;
    const valueOf = (name: string) => env.find((e) => e.name === name)?.value;
    assert.equal(valueOf('NATS_STREAM_REPLICAS'), String(streamReplicas), `${label}: ${component(d)}'s stream replicas`);
    assert.equal(valueOf('NATS_STREAM_CLUSTER'), streamPlacement.cluster || undefined, `${label}: ${component(d)}'s stream cluster`);
    assert.equal(valueOf('NATS_STREAM_TAGS'), streamPlacement.tags.join(',') || undefined, `${label}: ${component(d)}'s stream tags`);
  }
}

/** With an OTLP endpoint and egress fenced, every part may reach the collector's port where otel.egressTo says it is. */
function assertCollectorReachable(objects: Obj[], values: Obj, label: string): void {
  const endpoint: string = values.otel.endpoint;
  if (!endpoint || !values.networkPolicy.enabled || !values.networkPolicy.egress.enabled) return;
  const url = new URL(endpoint);
  const port = { number: Number(url.port || (url.protocol === 'https:' ? 443 : 80)), protocol: 'TCP' };
  const policies = byKind(objects, 'NetworkPolicy');
  for (const d of byKind(objects, 'Deployment')) {
    const pod = d.spec.template.metadata.labels;
    assert.ok(policyAllows(policies, 'egress', pod, 'outside', port), `${label}: ${component(d)} reaches the trace collector on ${port.number}`);
    const rule = policies.filter((p) => matches(p.spec.podSelector, pod)).flatMap((p) => p.spec.egress ?? [])
      .find((r: Obj) => r.ports?.some((x: Obj) => x.port === port.number));
    assert.deepEqual(rule?.to ?? [], values.otel.egressTo, `${label}: ${component(d)} reaches it at otel.egressTo`);
  }
}

testWith({ helm }, 'helm lint and helm template pass for every value set, monitoring off and on, and refuse bad ones', async () => {
  for (const file of valueSets) {
    const values = mergeValues(defaults, parse(readFileSync(join(chartDir, 'ci', file), 'utf8')) as Obj);
    for (const extra of [[], monitoringOn]) {
      const label = `helm template -f ci/${file}${extra.length ? ' with monitoring' : ''}`;
      run('helm', ['lint', '--strict', chartDir, '-f', join(chartDir, 'ci', file), ...extra]);
      const objects = render(file, extra);
      await validateAgainstKubernetes(objects.filter((o) => !isOperatorKind(o)), label);
      assertInstall(objects, label);
      assertCollectorReachable(objects, values, label);
      assertTraceExport(objects, values, label);
      assertStreamSettings(objects, values, label);
      const job = byKind(objects, 'Job')[0];
      assert.match(job.metadata.annotations['helm.sh/hook'], /pre-install/, `${label}: the Job is a pre-install hook`);
      assert.match(job.metadata.annotations['helm.sh/hook'], /pre-upgrade/, `${label}: the Job is a pre-upgrade hook`);
      if (extra.length) assertMonitoring(objects, label);
      else {
        assert.deepEqual(objects.filter(isOperatorKind).map(describe), [], `${label}: no Prometheus Operator objects`);
        assert.ok(!byKind(objects, 'ConfigMap').some((m) => m.metadata.labels?.grafana_dashboard), `${label}: no dashboard`);
      }
    }
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

/** promtool's stdout, with the files written into a directory of their own. */
function promtoolOn(files: Record<string, string>, args: (dir: string) => string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-promtool-'));
  try {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return run('promtool', args(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const unitTests = 'helm/tests/prometheus-rules.test.yaml';

testWith({ helm, promtool }, 'the rendered alert rules pass promtool check rules and their unit tests (promtool test rules)', () => {
  const [rule] = byKind(render(valueSets[0], monitoringOn), 'PrometheusRule');
  // The unit tests name their rules as ../files/prometheus-rules.yaml: the rendered ones take that place.
  const files = { 'files/prometheus-rules.yaml': stringify(rule.spec), 'tests/rules.test.yaml': readFileSync(projectPath(unitTests), 'utf8') };
  const checked = promtoolOn(files, (dir) => ['check', 'rules', join(dir, 'files/prometheus-rules.yaml')]);
  assert.match(checked, new RegExp(`SUCCESS: ${alerts.length} rules found`), 'promtool reads every alert');
  assert.match(promtoolOn(files, (dir) => ['test', 'rules', join(dir, 'tests/rules.test.yaml')]), /SUCCESS/);

  // Every alert is tested both firing and quiet.
  const cases = (parse(files['tests/rules.test.yaml']) as Obj).tests.flatMap((t: Obj) => t.alert_rule_test);
  for (const a of alerts) {
    assert.ok(cases.some((c: Obj) => c.alertname === a.alert && c.exp_alerts.length > 0), `${unitTests}: ${a.alert} fires`);
    assert.ok(cases.some((c: Obj) => c.alertname === a.alert && c.exp_alerts.length === 0), `${unitTests}: ${a.alert} stays quiet`);
  }
});

/** A dashboard query as PromQL: Grafana's variables replaced by what they would be on a dashboard. */
const asPromQL = (expr: string) => expr
  .replace(/\$__rate_interval|\$__interval|\$\{__interval\}/g, '5m')
  .replace(/\$__range/g, '6h')
  .replace(/\$\{?namespace\}?/g, 'svc');

testWith({ promtool }, 'every dashboard panel\'s query is PromQL that promtool parses', () => {
  const targets = dashboardQueries().filter((q) => q.where.startsWith('panel'));
  const asRules = { groups: [{ name: 'dashboard', rules: targets.map((q, i) => ({ record: `svc:dashboard_query_${i}`, expr: asPromQL(q.expr) })) }] };
  const out = promtoolOn({ 'dashboard.yaml': stringify(asRules) }, (dir) => ['check', 'rules', join(dir, 'dashboard.yaml')]);
  assert.match(out, new RegExp(`SUCCESS: ${targets.length} rules found`), 'every query parses');
  assert.ok(dashboardQueries().some((q) => /svc_consumer_pending/.test(q.expr)) && dashboardQueries().some((q) => /svc_consumer_processing_seconds/.test(q.expr)),
    'the dashboard shows consumer lag and processing time');
});
