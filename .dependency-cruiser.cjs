// The layering of docs/architecture.md as rules, checked over every source file by
// test/layering.test.ts (in `npm test`): any import that breaks one fails the build. There are no
// exceptions: a new need is a change of the rule here and in docs/architecture.md together.
//
// Floors, top to bottom; each imports only from the floors below it:
//   all-in-one/ | cli/ | dashboard/          (entry points; the dashboard is a browser bundle)
//   gateway/                                 (its own floors, GATEWAY_FLOORS below)
//   services/<part>/                         (payments, routing-risk, ledger, payouts, webhooks)
//   services/connectors/                     (the providers: facts for all, connectors for payments)
//   services/platform/                       (the runtime)
//   services/contract/                       (the promise to merchants, and the internal shapes)
//   proto/                                   (internal RPC contracts; proto/gen is generated)

const PARTS = '(payments|routing-risk|ledger|payouts|webhooks)';
/** The provider SDKs: only a provider's own connector modules import them (connectors/<code>/). */
const SDKS = 'node_modules/(stripe|@adyen|checkout-sdk-node|@paypal|@mollie|@basis-theory)/';

// The gateway's floors, top to bottom: the composition (app.ts, main.ts), the dashboard API (which
// reuses the management handlers), the /v1 scope, the handlers of /v1, /manage/v1 and the
// sandbox pages, the HTTP helpers, the edge rules (keys, limits, idempotency), authentication,
// and at the bottom its Postgres store and the parts' gRPC clients.
const GATEWAY_FLOORS = [
  ['composition', '^gateway/(app|bootstrap|index|main)\\.ts$'],
  ['dashboard API', '^gateway/dashboard/'],
  ['/v1 scope', '^gateway/api/'],
  ['handlers', '^gateway/(routes|management|sandbox)/'],
  ['http helpers', '^gateway/http/'],
  ['edge rules', '^gateway/edge/'],
  ['authentication', '^gateway/auth/'],
  ['store and clients', '^gateway/(store/|clients\\.ts$)'],
];

const gatewayFloorRules = GATEWAY_FLOORS.slice(1).map(([name, path], i) => ({
  name: `gateway-floor-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`,
  comment: `gateway: the ${name} import nothing of the floors above them (${GATEWAY_FLOORS.slice(0, i + 1).map(([n]) => n).join(', ')})`,
  severity: 'error',
  from: { path },
  to: { path: GATEWAY_FLOORS.slice(0, i + 1).map(([, p]) => p) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no module reaches itself again through its imports, type-only imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'proto-is-the-ground',
      comment: 'proto/ imports nothing of the code built on it',
      severity: 'error',
      from: { path: '^proto/' },
      to: { path: '^(services|gateway|cli|all-in-one|dashboard)/' },
    },
    {
      name: 'contract-above-proto-only',
      comment: 'services/contract imports only itself and proto/: no platform file, no part, no edge',
      severity: 'error',
      from: { path: '^services/contract/' },
      to: { path: '^(services/(?!contract/)|gateway/|cli/|all-in-one/|dashboard/)' },
    },
    {
      name: 'platform-below-the-parts',
      comment: 'services/platform imports the contract and proto/, nothing above it',
      severity: 'error',
      from: { path: '^services/platform/' },
      to: { path: '^(services/(?!platform/|contract/)|gateway/|cli/|all-in-one/|dashboard/)' },
    },
    {
      name: 'connectors-below-the-parts',
      comment: 'services/connectors imports the platform, the contract and proto/, nothing above it',
      severity: 'error',
      from: { path: '^services/connectors/' },
      to: { path: '^(services/(?!connectors/|platform/|contract/)|gateway/|cli/|all-in-one/|dashboard/)' },
    },
    {
      name: 'parts-apart',
      comment: 'a part imports no other part: they talk over their gRPC services (proto/)',
      severity: 'error',
      from: { path: `^services/${PARTS}/` },
      to: { path: `^services/${PARTS}/`, pathNot: '^services/$1/' },
    },
    {
      name: 'services-below-the-edge',
      comment: 'nothing under services/ imports the gateway, the CLI, the composition or the dashboard',
      severity: 'error',
      from: { path: '^services/' },
      to: { path: '^(gateway|cli|all-in-one|dashboard)/' },
    },
    {
      name: 'parts-through-their-index',
      comment: 'from outside a part, only its index.ts: no one reaches into its internals',
      severity: 'error',
      from: { path: '^(gateway|cli|all-in-one|dashboard)/' },
      to: { path: `^services/${PARTS}/`, pathNot: `^services/${PARTS}/index\\.ts$` },
    },
    {
      name: 'gateway-calls-parts-over-rpc',
      comment: 'the gateway imports no part at all: it calls them through its gRPC clients (clients.ts)',
      severity: 'error',
      from: { path: '^gateway/' },
      to: { path: `^services/${PARTS}/` },
    },
    {
      name: 'entry-points-apart',
      comment: 'the gateway, the CLI and the dashboard import none of each other nor the composition',
      severity: 'error',
      from: { path: '^(gateway|cli|dashboard)/' },
      to: { path: '^(gateway|cli|dashboard|all-in-one)/', pathNot: '^$1/' },
    },
    {
      name: 'main-is-run-not-imported',
      comment: 'a process entry (main.ts) is run, never imported (the CLI\'s is bin/svc.js)',
      severity: 'error',
      from: {},
      to: { path: '^(services/[^/]+|gateway|all-in-one)/main\\.ts$' },
    },
    {
      name: 'provider-facts-only',
      comment: 'outside payments, a provider is its facts: the list (providers.ts) and its types, never a connector',
      severity: 'error',
      from: { path: '^(services/(?!payments/|connectors/)|gateway/|cli/|all-in-one/|dashboard/)' },
      to: { path: '^services/connectors/', pathNot: '^services/connectors/(providers|provider-definition)\\.ts$' },
    },
    {
      name: 'sdk-only-in-a-connector',
      comment: 'a provider SDK is imported only by the connector modules of its provider folder, never by its facts',
      severity: 'error',
      from: { pathNot: '^services/connectors/[^/]+/(?!index\\.ts$|facts\\.ts$)' },
      to: { path: SDKS, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'connector-loaded-lazily',
      comment: 'a connector module is loaded only by its folder\'s connector() (a dynamic import) or by its own folder',
      severity: 'error',
      from: { path: '^(?!services/connectors/([^/]+)/)' },
      to: {
        path: '^services/connectors/[^/]+/(?!index\\.ts$|facts\\.ts$)',
        dependencyTypesNot: ['dynamic-import', 'type-only'],
      },
    },
    {
      name: 'provider-facts-stay-plain',
      comment: 'a provider\'s facts.ts imports no connector module, its own folder\'s included',
      severity: 'error',
      from: { path: '^services/connectors/[^/]+/facts\\.ts$' },
      to: { path: '^services/connectors/[^/]+/(?!facts\\.ts$)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'cli-over-http',
      comment: 'the CLI imports the contract, the providers\' facts and the platform\'s process-free helpers; a part only by a dynamic import of its index.ts (svc routing simulate)',
      severity: 'error',
      from: { path: '^cli/' },
      to: {
        pathNot: '^(cli/|services/contract/|services/connectors/providers\\.ts$|services/platform/(ids|base-url-file|operator-token)\\.ts$)',
        dependencyTypesNot: ['core', 'dynamic-import'],
      },
    },
    {
      name: 'cli-helpers-are-leaves',
      comment: 'the platform helpers the CLI loads import only node\'s own modules and each other',
      severity: 'error',
      from: { path: '^services/platform/(ids|base-url-file|operator-token)\\.ts$' },
      to: { pathNot: '^services/platform/(ids|base-url-file|operator-token)\\.ts$', dependencyTypesNot: ['core'] },
    },
    {
      name: 'dashboard-is-a-browser-bundle',
      comment: 'the dashboard imports its own files, the contract and its npm packages: the rest is over HTTP',
      severity: 'error',
      from: { path: '^dashboard/' },
      to: { path: '^(services/(?!contract/)|gateway/|cli/|all-in-one/|proto/)' },
    },
    {
      name: 'gateway-handlers-apart',
      comment: 'the /v1 handlers, the management handlers and the sandbox pages import none of each other',
      severity: 'error',
      from: { path: '^gateway/(routes|management|sandbox)/' },
      to: { path: '^gateway/(routes|management|sandbox)/', pathNot: '^gateway/$1/' },
    },
    ...gatewayFloorRules,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Tests may reach anything they test; generated code and packages are not ours to order.
    exclude: { path: '(^|/)node_modules/|\\.test\\.tsx?$|^test/' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'] },
  },
};
