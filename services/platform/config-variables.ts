
// Every environment variable the deployment reads, written once. config/parse.ts reads whole numbers
// with the defaults and bounds below; docs/configuration.md prints this list as its table
// (`npm run docs` writes it, test/docs.test.ts fails when the page differs).

export interface WholeNumber {
  readonly default: number;
  readonly min: number;
  readonly max: number;
}

const DAY_MS = 86_400_000;

export const WHOLE_NUMBERS = {
  NATS_STREAM_REPLICAS: { default: 1, min: 1, max: 5 },
  PORT: { default: 8080, min: 0, max: 65535 },
  GRPC_PORT: { default: 50051, min: 0, max: 65535 },
  METRICS_PORT: { default: 0, min: 0, max: 65535 },
  HEALTH_CHECK_INTERVAL_MS: { default: 5_000, min: 100, max: 60_000 },
  EMBEDDED_POSTGRES_PORT: { default: 54329, min: 1, max: 65535 },
  WORKERS: { default: 1, min: 0, max: 64 },
  DATABASE_POOL_SIZE: { default: 10, min: 1, max: 200 },
  DATABASE_CONNECT_TIMEOUT_MS: { default: 2_000, min: 100, max: 60_000 },
  DATABASE_STATEMENT_TIMEOUT_MS: { default: 5_000, min: 100, max: 600_000 },
  DATABASE_QUERY_TIMEOUT_MS: { default: 6_000, min: 100, max: 600_000 },
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: { default: 60_000, min: 1_000, max: 3_600_000 },
  DATABASE_KEEPALIVE_DELAY_MS: { default: 5_000, min: 1_000, max: 600_000 },
  CLOCK_SKEW_MAX_MS: { default: 2_000, min: 10, max: 3_600_000 },
  CLOCK_SKEW_CHECK_MS: { default: 30_000, min: 100, max: 3_600_000 },
  REQUEST_BUDGET_MS: { default: 60_000, min: 1_000, max: 600_000 },
  OUTBOX_POLL_MS: { default: 250, min: 10, max: 60_000 },
  OUTBOX_WAIT_MS: { default: 20, min: 0, max: 1_000 },
  ROUTING_OUTCOME_WAIT_MS: { default: 200, min: 0, max: 5_000 },
  ROUTING_DECISION_WRITE_TEST_DELAY_MS: { default: 0, min: 0, max: 60_000 },
  OUTBOX_RETENTION_HOURS: { default: 168, min: 0, max: 24 * 366 },
  PAYMENT_CREATED_HOLD_MS: { default: 1_000, min: 0, max: 10_000 },
  SHUTDOWN_TIMEOUT_MS: { default: 10_000, min: 0, max: 300_000 },
  HTTP_REQUEST_TIMEOUT_MS: { default: 30_000, min: 100, max: 600_000 },
  RATE_LIMIT_PER_MINUTE: { default: 1000, min: 1, max: 10_000_000 },
  IDEMPOTENCY_TTL_HOURS: { default: 24, min: 1, max: 24 * 30 },
  IDEMPOTENCY_LOCK_SECONDS: { default: 120, min: 1, max: 3600 },
  PROVIDER_TIMEOUT_MS: { default: 10_000, min: 100, max: 120_000 },
  AUTHORIZATION_TTL_HOURS: { default: 168, min: 1, max: 24 * 31 },
  EXPIRY_SWEEP_MS: { default: 60_000, min: 10, max: 3_600_000 },
  RECONCILIATION_SWEEP_MS: { default: 60_000, min: 10, max: 3_600_000 },
  SETTLEMENT_SYNC_INTERVAL_MS: { default: DAY_MS, min: 0, max: 30 * DAY_MS },
  DISPUTE_SYNC_INTERVAL_MS: { default: 3_600_000, min: 0, max: 3_600_000 },
  CUSTOMER_ACTION_TTL_MINUTES: { default: 15, min: 1, max: 7 * 24 * 60 },
  WEBHOOK_TIMEOUT_MS: { default: 10_000, min: 100, max: 60_000 },
  WEBHOOK_MAX_ATTEMPTS: { default: 6, min: 1, max: 50 },
  WEBHOOK_CONCURRENCY: { default: 200, min: 1, max: 10_000 },
  WEBHOOK_ENDPOINT_CONCURRENCY: { default: 16, min: 1, max: 1000 },
  WEBHOOK_POLL_MS: { default: 500, min: 10, max: 60_000 },
  WEBHOOK_EVENTS_WAIT_MS: { default: 50, min: 0, max: 5_000 },
  SETTLEMENT_CUTOFF_MS: { default: DAY_MS, min: 0, max: 30 * DAY_MS },
  SETTLEMENT_SWEEP_MS: { default: 60_000, min: 10, max: DAY_MS },
  LEDGER_RECORD_WAIT_MS: { default: 50, min: 0, max: 5_000 },
  PAYOUT_HOLD_MS: { default: 60_000, min: 0, max: 7 * DAY_MS },
  PAYOUT_SWEEP_MS: { default: 1_000, min: 10, max: 3_600_000 },
  AUTH_THROTTLE_PER_MINUTE: { default: 10, min: 1, max: 100_000 },
  SIGN_IN_THROTTLE_PER_MINUTE: { default: 30, min: 1, max: 100_000 },
  DASHBOARD_SWEEP_MS: { default: 600_000, min: 10, max: DAY_MS },
  EVENT_STREAM_MAX_LIFETIME_SECONDS: { default: 1800, min: 1, max: 86_400 },
  EVENT_STREAMS_PER_GATEWAY: { default: 1000, min: 1, max: 100_000 },
  EVENT_STREAM_RECHECK_MS: { default: 2_000, min: 100, max: 5_000 },
  WEBHOOK_HOST_RATE_PER_SECOND: { default: 200, min: 1, max: 10_000 },
  WEBHOOK_RETENTION_DAYS: { default: 30, min: 1, max: 3650 },
  WEBHOOK_DISABLE_AFTER_HOURS: { default: 120, min: 0, max: 24 * 366 },
  WEBHOOK_SWEEP_MS: { default: 60_000, min: 50, max: DAY_MS },
  START_TIMEOUT_MS: { default: 120_000, min: 1_000, max: 3_600_000 },
  SMTP_PORT: { default: 587, min: 1, max: 65535 },
  PAYOUT_TEST_HOLD_MS: { default: 5_000, min: 0, max: 7 * DAY_MS },
} as const satisfies Record<string, WholeNumber>;

export type WholeNumberName = keyof typeof WHOLE_NUMBERS;

/** One row of the configuration table: a variable (or a few set together) and what it does. */
export interface VariableDoc {
  readonly names: readonly string[];
  /** What applies when it is unset; a whole number's default comes from WHOLE_NUMBERS instead. */
  readonly default?: string;
  /** Said after a whole number's default, e.g. how `npm start` differs. */
  readonly defaultNote?: string;
  /** The parts that read it. */
  readonly usedBy: string;
  readonly meaning: string;
}

export const VARIABLES: readonly VariableDoc[] = [
  {
    names: ["DATABASE_URL"],
    default: "embedded Postgres (all-in-one only)",
    usedBy: "all",
    meaning:
      "Postgres connection URL. Each part uses its own schema on it. A part started before Postgres answers waits for it (up to `START_TIMEOUT_MS`, logging `start-up step \"Postgres connection\" failed (…), retrying`) instead of exiting.",
  },
  {
    names: ["DATABASE_POOL_SIZE"],
    usedBy: "all",
    meaning:
      "Postgres connections each part's pool may open. Parts × replicas × this must stay below the server's `max_connections`; each routing-risk replica holds one more (its planning cache's `LISTEN`).",
  },
  {
    names: ["DATABASE_CONNECT_TIMEOUT_MS"],
    usedBy: "all",
    meaning:
      "Longest wait for a Postgres connection or a free pooled client; past it the request is `503 service_unavailable` (docs/operations.md, \"Deadlines\").",
  },
  {
    names: ["DATABASE_QUERY_TIMEOUT_MS"],
    usedBy: "all",
    meaning:
      "Longest wait for a statement's answer (a partition never answers); the connection is then destroyed and the request is `503`.",
  },
  {
    names: ["DATABASE_STATEMENT_TIMEOUT_MS"],
    usedBy: "all",
    meaning:
      "Postgres's `statement_timeout` for the part's sessions; migrations are exempt.",
  },
  {
    names: ["DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS"],
    usedBy: "all",
    meaning:
      "Postgres's `idle_in_transaction_session_timeout`: a session left idle in a transaction is ended and rolled back.",
  },
  {
    names: ["DATABASE_KEEPALIVE_DELAY_MS"],
    usedBy: "all",
    meaning:
      "TCP keepalive on Postgres connections starts after this much idleness.",
  },
  {
    names: ["REQUEST_BUDGET_MS"],
    usedBy: "all",
    meaning:
      "Deadline of a call from the gateway to a part, or between parts, that sets none of its own: past it the caller gets `503`.",
  },
  {
    names: ["CLOCK_SKEW_MAX_MS"],
    usedBy: "all",
    meaning:
      "The most a part's clock may differ from the database's; beyond it the part is not ready, answers `503` and claims no work.",
  },
  {
    names: ["CLOCK_SKEW_CHECK_MS"],
    usedBy: "all",
    meaning:
      "How often a part reads the database's clock (it also reads it at start).",
  },
  {
    names: ["NATS_URL"],
    default: "in-process bus (all-in-one only)",
    usedBy: "all",
    meaning:
      "NATS server with JetStream, or a cluster's seeds comma-separated (`nats://a:4222,nats://b:4222`). A part started before it answers waits for it, as for Postgres. Its `max_payload` must be at least 132096 bytes (`MAX_EVENT_BYTES`, 128 KiB, plus 1 KiB for headers; NATS's default is 1 MiB), as must the stream's `max_msg_size` if it has one: otherwise payments, payouts and ledger refuse to start (exit 78).",
  },
  {
    names: ["NATS_STREAM"],
    default: "`SVC_EVENTS`",
    usedBy: "all",
    meaning:
      "JetStream stream holding every event. The parts make it when it is missing, at start and whenever NATS comes back without it (docs/operations.md, \"NATS comes back without its store\").",
  },
  {
    names: ["NATS_STREAM_REPLICAS"],
    usedBy: "all",
    meaning:
      "Replicas of the stream: `3` on a NATS cluster. An existing stream's replicas are brought to it.",
  },
  {
    names: ["NATS_STREAM_CLUSTER", "NATS_STREAM_TAGS"],
    default: "none",
    usedBy: "all",
    meaning:
      "Where the stream's replicas go when it is made: a NATS cluster's name, server tags (comma-separated).",
  },
  {
    names: ["NATS_SUBJECT_PREFIX"],
    default: "`svc.events`",
    usedBy: "all",
    meaning:
      "Events are published on `<prefix>.<event type>`.",
  },
  {
    names: ["HOST"],
    default: "`0.0.0.0` (`127.0.0.1` for `npm start`)",
    usedBy: "all",
    meaning:
      "Address to bind.",
  },
  {
    names: ["PORT"],
    usedBy: "gateway, all-in-one",
    meaning:
      "HTTP port of the REST API.",
  },
  {
    names: ["GRPC_PORT"],
    usedBy: "each service part",
    meaning:
      "gRPC port.",
  },
  {
    names: ["PAYMENTS_URL", "ROUTING_RISK_URL", "LEDGER_URL", "PAYOUTS_URL", "WEBHOOKS_URL"],
    default: "—",
    usedBy: "gateway, payments, payouts",
    meaning:
      "Base URL (`http://host:port`) of a peer part. Required by the parts that call it: the gateway calls payments, routing-risk (routing rules), ledger, payouts and webhooks; payments calls routing-risk and ledger (the settlement sync); payouts calls routing-risk and ledger.",
  },
  {
    names: ["OPERATOR_TOKEN"],
    default: "generated into `.data/operator-token` (all-in-one)",
    usedBy: "gateway",
    meaning:
      "Bearer token of the management API (24+ characters). Without it a standalone gateway serves no management API.",
  },
  {
    names: ["INTERNAL_TOKEN"],
    default: "made in memory at start (all-in-one)",
    usedBy: "all",
    meaning:
      "The credential (32+ characters) the gateway and the parts present when they call each other over gRPC, admitted for every project. Required by a part or gateway run on its own ([operations.md](operations.md)).",
  },
  {
    names: ["INTERNAL_CALLERS"],
    default: "none",
    usedBy: "each service part",
    meaning:
      "Other internal services admitted to the parts' gRPC services: JSON `{\"name\": {\"token_sha256\": \"<64 hex>\", \"projects\": [\"prj_...\"] or \"*\"}}` ([operations.md](operations.md)).",
  },
  {
    names: ["IN_PROCESS_CALLS"],
    default: "`direct`",
    usedBy: "all-in-one",
    meaning:
      "How the parts of one process call each other: `direct` hands each call's message to the part's implementation, through the same checks as gRPC (credential, deadline, errors, tracing, metrics, request size) without encoding it; `router` goes through Connect's router transport, encoding every call as gRPC would (slower; kept to run the tests both ways).",
  },
  {
    names: ["METRICS_PORT"],
    default: "unset (no endpoint)",
    usedBy: "all",
    meaning:
      "Port of the Prometheus endpoint `GET /metrics` (0 picks a free port); one endpoint for every part under `npm start` ([operations.md](operations.md)).",
  },
  {
    names: ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    default: "unset (no tracing)",
    usedBy: "all",
    meaning:
      "OTLP collector base URL; traces go to `<url>/v1/traces` as JSON, W3C trace context throughout ([operations.md](operations.md)). Unset, nothing of the OpenTelemetry SDK is loaded.",
  },
  {
    names: ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"],
    default: "`http/json`",
    usedBy: "all",
    meaning:
      "`http/json`, `http/protobuf` (both to `<url>/v1/traces`) or `grpc` (to `<url>` itself); `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` wins when set. Anything else refuses to start.",
  },
  {
    names: ["START_TIMEOUT_MS"],
    defaultNote: "(the chart: its startup probe's budget)",
    usedBy: "all",
    meaning:
      "How long start-up may take. Each step (Postgres, migrations, NATS, JetStream's stream check and consumers) is retried with backoff (0.25 s doubling to 10 s, jittered) until then; past it the process exits 1 with one line naming the step. What waiting cannot fix (a wrong password, a broken migration, a refused NATS credential) stops start-up at once.",
  },
  {
    names: ["HEALTH_CHECK_INTERVAL_MS"],
    usedBy: "each service part",
    meaning:
      "How often a part asks its Postgres `SELECT 1` for its `grpc.health.v1` status.",
  },
  {
    names: ["LOG_LEVEL"],
    default: "`info` (`warn` for `npm start`)",
    usedBy: "all",
    meaning:
      "`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.",
  },
  {
    names: ["DATA_DIR"],
    default: "`.data`",
    usedBy: "all-in-one",
    meaning:
      "Embedded Postgres data, the local operator token and the keys `npm start` makes (`provider-secret-key`, `webhook-secret-key`, mode 0600). Keep them with the database: without them its sealed secrets cannot be read.",
  },
  {
    names: ["EMBEDDED_POSTGRES_PORT"],
    usedBy: "all-in-one",
    meaning:
      "Port of the embedded Postgres. When another process holds it (a second `npm start`), start-up stops with one line naming the port and this variable (exit 1); it never moves to another port by itself.",
  },
  {
    names: ["WORKERS"],
    usedBy: "all-in-one",
    meaning:
      "Processes `npm start` serves from when `DATABASE_URL` and `NATS_URL` are both set (`0`: one per core, at most 4): each runs the whole service and they share `PORT`, one supervising process making the first merchant, printing the start-up text, restarting a worker that dies and stopping them all on SIGTERM. More than 1 needs both variables (the embedded Postgres and the in-process bus belong to one process) and no `METRICS_PORT` (each worker counts only its own requests); each worker opens its own pools, so parts × workers × `DATABASE_POOL_SIZE` must stay below Postgres's `max_connections`, and `EVENT_STREAMS_PER_GATEWAY` applies per worker. It pays only with cores that Postgres and NATS leave free (docs/performance.md, \"Every core\").",
  },
  {
    names: ["OUTBOX_POLL_MS"],
    usedBy: "producing parts",
    meaning:
      "How often the outbox relay looks for unsent events (it is also woken right after each commit).",
  },
  {
    names: ["OUTBOX_WAIT_MS"],
    usedBy: "producing parts",
    meaning:
      "How long the outbox relay, woken by a commit, waits for more commits before it claims and publishes, so a steady trickle of payments shares one claim, one bus message round and one record; events reach the bus at most this much later. `0`: at once.",
  },
  {
    names: ["OUTBOX_PACK"],
    default: "`false`; `true` in `npm start`'s process",
    usedBy: "producing parts",
    meaning:
      "Whether the outbox relay sends consecutive events of one payment (or payout, settlement) that it claims together as one message, which each consumer receives and acknowledges once: a payment decided within its request is one message for `payment.created`, its outcome and their internal events (merchants still get each event as its own webhook). Consumers of this version read both forms. Off by default where parts run as processes of their own: turn it on once every ledger, webhooks and routing-risk replica runs this version or later, since an older consumer acknowledges a pack without reading it. `npm start`'s process, whose parts are always one version, packs unless told not to.",
  },
  {
    names: ["PAYMENT_CREATED_HOLD_MS"],
    usedBy: "payments",
    meaning:
      "With `OUTBOX_PACK`, how long a payment's `payment.created` may wait in the outbox, by the database's clock, for the outcome its request is still asking a provider for, so the two leave as one message. It leaves as soon as any later event of the payment commits (a customer action's `payment.processing` too), else when the hold ends. `0` sends it at once.",
  },
  {
    names: ["OUTBOX_RETENTION_HOURS"],
    usedBy: "producing parts",
    meaning:
      "How long a published event stays in the outbox for `svc outbox republish`; older ones are deleted hourly. `0` keeps them all.",
  },
  {
    names: ["SHUTDOWN_TIMEOUT_MS"],
    usedBy: "all parts",
    meaning:
      "How long in-flight requests may take to finish on SIGTERM. The gateway cuts connections still open shortly before it (a client holding a half-sent body included) and exits within it.",
  },
  {
    names: ["HTTP_REQUEST_TIMEOUT_MS"],
    usedBy: "gateway",
    meaning:
      "How long a client may take to send a whole request; its headers get a third of it, at most 10 s. A slower client is answered `408 request_timeout`.",
  },
  {
    names: ["RATE_LIMIT_PER_MINUTE"],
    usedBy: "gateway",
    meaning:
      "Requests per API key per rolling minute, shared by all gateway replicas. A key's own ceiling (`svc key rate-limit`) overrides it; past it `/v1` answers `429 rate_limited`.",
  },
  {
    names: ["AUTH_THROTTLE_PER_MINUTE"],
    usedBy: "gateway",
    meaning:
      "Requests per client address per clock minute to the dashboard's register, password reset, reset confirm and invitation accept, shared by all gateway replicas; past it `429 rate_limited` with `Retry-After`. The address is the socket peer's, or `X-Forwarded-For`'s from `TRUSTED_PROXIES`.",
  },
  {
    names: ["SIGN_IN_THROTTLE_PER_MINUTE"],
    usedBy: "gateway",
    meaning:
      "The same for the dashboard's member sign-in. Wrong passwords are slowed per email and address besides ([operations.md](operations.md)).",
  },
  {
    names: ["IDEMPOTENCY_TTL_HOURS"],
    usedBy: "gateway, payments, payouts",
    meaning:
      "How long an `Idempotency-Key` and its stored response are kept and replayed, and how long payments and payouts keep the key bound to what it moved; after that the key may be reused.",
  },
  {
    names: ["IDEMPOTENCY_LOCK_SECONDS"],
    usedBy: "gateway",
    meaning:
      "How long a request holds its key while running. A retry after that runs again, so a gateway killed mid-request does not block its key for good; the part that moves the money still answers that retry with what the key already moved.",
  },
  {
    names: ["TRUSTED_PROXIES"],
    default: "empty (X-Forwarded-For is never trusted)",
    usedBy: "gateway",
    meaning:
      "Comma-separated addresses or CIDR ranges of the proxies in front of the gateway. Only a request whose socket peer is one of them has its client address read from `X-Forwarded-For` (walked from the right past these proxies), for the per-project IP allow-list (`svc allowlist`).",
  },
  {
    names: ["AUTHORIZATION_TTL_HOURS"],
    usedBy: "payments",
    meaning:
      "How long a manual-capture authorization may wait for capture; after that it is cancelled with `payment.cancelled`. Counted from the provider's authorization, so a change applies to authorizations already held.",
  },
  {
    names: ["EXPIRY_SWEEP_MS"],
    usedBy: "payments",
    meaning:
      "How often each payments replica looks for expired authorizations and expired customer actions; replicas share the work without changing one payment twice.",
  },
  {
    names: ["RECONCILIATION_SWEEP_MS"],
    usedBy: "payments",
    meaning:
      "How often each payments replica asks providers again about attempts whose outcome is still open (the provider could not tell, or the process died during the call), and settles their payments.",
  },
  {
    names: ["SETTLEMENT_SYNC_INTERVAL_MS"],
    usedBy: "payments",
    meaning:
      "How often each connected, active account of every provider that can list its settlements (Stripe's; the `settlementSync` capability of its definition) is synced into the ledger without an operator, as `svc settlement sync` does (`0` = never, daily by default). Replicas claim each account's sync once per interval (`payments.settlement_syncs` records what the last one did and why one failed, so a restart does not redo it); a failing account is tried again at the next interval and does not stop the others. Runs in every deployment: payments reaches the ledger at `LEDGER_URL` (the Helm chart and the kustomize base set it). Its old name, `STRIPE_SETTLEMENT_SYNC_INTERVAL_MS`, is still read while this one is unset, with a warning.",
  },
  {
    names: ["DISPUTE_SYNC_INTERVAL_MS"],
    usedBy: "payments",
    meaning:
      "How often each connected account (credentials stored, disabled ones too) of every provider with a dispute list call (Stripe's dispute events, Checkout.com, PayPal, Mollie; not Adyen, which has none) is asked for the disputes changed since its last sync, so a dispute whose notification was lost is found within the interval (`0` = never, hourly by default and at most). Replicas claim each account once per interval on the database's clock (`payments.dispute_syncs` records the last sync and why one failed); what it finds is recorded and applied as the webhook would have been, once (docs/connectors.md, \"Disputes\").",
  },
  {
    names: ["CUSTOMER_ACTION_TTL_MINUTES"],
    usedBy: "payments",
    meaning:
      "How long a payment on an asynchronous rail waits for the customer's action before it fails with `customer_action_expired`; shown as `next_action.expiresAt`, so a change applies to new payments only.",
  },
  {
    names: ["PROVIDER_TIMEOUT_MS"],
    usedBy: "payments, payouts",
    meaning:
      "Deadline of one call to a provider: authorize, status query, refund, payout. Past it the provider is asked for the outcome before any failover; an outcome still unknown leaves the payment, refund or payout `processing` (never risking a second charge) until reconciliation learns it.",
  },
  {
    names: ["ROUTING_OUTCOME_WAIT_MS"],
    usedBy: "routing-risk",
    meaning:
      "How long the attempt-outcome writer waits for more outcomes before writing a lone one, so a burst shares one statement; routing learns at most this much later. `0`: at once.",
  },
  {
    names: ["ROUTING_DECISION_WRITE_TEST_DELAY_MS"],
    usedBy: "routing-risk",
    meaning:
      "For tests only: how long routing-risk holds each batch of decisions before writing it, so a test can stop the part between its answer and the write. Leave it unset (`0`).",
  },
  {
    names: ["SETTLEMENT_CUTOFF_MS"],
    usedBy: "ledger",
    meaning:
      "Demo providers settle a test-mode payment, refund or dispute movement once it is this old (T+1 by default). See [ledger.md](ledger.md).",
  },
  {
    names: ["SETTLEMENT_SWEEP_MS"],
    usedBy: "ledger",
    meaning:
      "How often each ledger replica runs the demo providers' settlement cycle; two replicas reporting the same batch make one settlement.",
  },
  {
    names: ["LEDGER_RECORD_WAIT_MS"],
    usedBy: "ledger",
    meaning:
      "How long the ledger's movement writer waits for more money events before writing a lone one, so a steady trickle shares one statement and one acknowledgement; balances show a movement at most this much later. `0`: at once.",
  },
  {
    names: ["PAYOUT_HOLD_MS"],
    usedBy: "payouts",
    meaning:
      "How long a live payout stays `created` (cancellable) before it is sent to its provider; also the test-mode hold when `PAYOUT_TEST_HOLD_MS` is unset.",
  },
  {
    names: ["PAYOUT_TEST_HOLD_MS"],
    defaultNote: "(`PAYOUT_HOLD_MS` when that is set)",
    usedBy: "payouts",
    meaning:
      "The same hold for test-mode payouts. A payout's `route.scheduled_for` says when its hold ends.",
  },
  {
    names: ["PAYOUT_SWEEP_MS"],
    usedBy: "payouts",
    meaning:
      "How often each payouts replica sends the payouts whose hold has passed, and sends again (same payout id) those whose provider answer is overdue; replicas share the work without sending one twice at once.",
  },
  {
    names: ["PUBLIC_BASE_URL"],
    default: "`http://HOST:PORT` (all-in-one only)",
    usedBy: "payments, gateway",
    meaning:
      "Where customers' and dashboard users' browsers reach the gateway. Makes the sandbox page's `next_action.url` absolute; without it the URL is a path on the API's base URL. The only base of the links the dashboard mails (registration, password reset, invitation): without it a gateway run on its own warns at start and answers those requests `503 not_configured` (never a link built from the request's `Host`).",
  },
  {
    names: ["SMTP_HOST"],
    default: "unset (no mail transport)",
    usedBy: "gateway",
    meaning:
      "The SMTP server the dashboard's mail goes through (nodemailer). Unset: a gateway run on its own warns at start and logs recipient and subject of each mail, never its text; `npm start` prints the whole mail on the terminal. The other `SMTP_*` and `MAIL_FROM` need it.",
  },
  {
    names: ["SMTP_PORT"],
    usedBy: "gateway",
    meaning:
      "Port of the SMTP server.",
  },
  {
    names: ["SMTP_SECURE"],
    default: "`true` on port 465, else `false`",
    usedBy: "gateway",
    meaning:
      "TLS from the first byte; `false` uses STARTTLS, which is required when `SMTP_USER` is set (except to a loopback relay).",
  },
  {
    names: ["SMTP_USER", "SMTP_PASSWORD"],
    default: "none",
    usedBy: "gateway",
    meaning:
      "The SMTP account, set together. The password is a secret: from a Secret (the chart's `secrets.smtpPassword`, refused in plain `env`), never logged.",
  },
  {
    names: ["MAIL_FROM"],
    default: "— (required with `SMTP_HOST`)",
    usedBy: "gateway",
    meaning:
      "The From of the dashboard's mail: `no-reply@example.com` or `Payments <no-reply@example.com>`.",
  },
  {
    names: ["DASHBOARD_SWEEP_MS"],
    usedBy: "gateway",
    meaning:
      "How often each gateway replica deletes expired mailed links (resets, invitations, registrations) and throttle rows past their window.",
  },
  {
    names: ["WEBHOOK_TIMEOUT_MS"],
    usedBy: "webhooks",
    meaning:
      "Deadline of one delivery attempt: lookup, connect, TLS, request and the first 2 KB of the response. Past it the attempt failed.",
  },
  {
    names: ["WEBHOOK_MAX_ATTEMPTS"],
    usedBy: "webhooks",
    meaning:
      "Attempts before a delivery is `exhausted`, on the contract's schedule: at once, +30 s, +2 min, +10 min, +30 min, then every 2 h. The event is kept and can be resent.",
  },
  {
    names: ["WEBHOOK_CONCURRENCY"],
    usedBy: "webhooks",
    meaning:
      "Attempts in flight per webhooks replica.",
  },
  {
    names: ["WEBHOOK_EVENTS_WAIT_MS"],
    usedBy: "webhooks",
    meaning:
      "How long the webhooks part waits for more events before storing a lone one, so a steady trickle shares one statement and one acknowledgement; deliveries start at most this much later. `0`: at once.",
  },
  {
    names: ["WEBHOOK_ENDPOINT_CONCURRENCY"],
    usedBy: "webhooks",
    meaning:
      "HTTP requests open to one endpoint per replica, so one slow endpoint never holds up the others.",
  },
  {
    names: ["WEBHOOK_POLL_MS"],
    usedBy: "webhooks",
    meaning:
      "How often a dispatcher looks for retries that came due (new events wake it at once).",
  },
  {
    names: ["WEBHOOKS_ALLOW_LOOPBACK_IN_TEST"],
    default: "`true`",
    usedBy: "webhooks",
    meaning:
      "Whether test-mode endpoints may be on loopback for local development. Live endpoints are always `https` on public addresses, checked when saved and again on the resolved address at connect time.",
  },
  {
    names: ["WEBHOOK_SECRET_KEY"],
    default: "none (`npm start` makes one in its data folder; in one process without it secrets are stored unencrypted, with a warning at every start)",
    usedBy: "webhooks",
    meaning:
      "32 bytes (64 hex characters or base64) that encrypt endpoint signing secrets at rest (AES-256-GCM). Required by the webhooks part run on its own (exit 78 without it; the Helm chart makes one); a part started with it encrypts the secrets stored before it. Never change it.",
  },
  {
    names: ["WEBHOOK_RETENTION_DAYS"],
    usedBy: "webhooks",
    meaning:
      "Days events (what `GET /v1/events` lists), their deliveries and attempts are kept after the event's `created_at`; an event with a delivery still unfinished is kept until it finishes.",
  },
  {
    names: ["WEBHOOK_DISABLE_AFTER_HOURS"],
    defaultNote: "(5 days)",
    usedBy: "webhooks",
    meaning:
      "An endpoint whose every attempt has failed for this long is disabled (`disabled_reason: failing`) and its merchant's owners are mailed by the gateway. `0`: never disabled for failing.",
  },
  {
    names: ["WEBHOOK_SWEEP_MS"],
    usedBy: "webhooks, gateway",
    meaning:
      "How often each webhooks replica disables failing endpoints and deletes what is past retention, and how often each gateway mails the owners of endpoints just disabled.",
  },
  {
    names: ["WEBHOOK_HOST_RATE_PER_SECOND"],
    usedBy: "webhooks",
    meaning:
      "Delivery attempts one webhooks replica starts per second to one destination host, all endpoints together. More wait for the host's next slot (in memory up to a second, else back in the table until then); they are not failed attempts, and manual resends are not held.",
  },
  {
    names: ["EVENT_STREAM_MAX_LIFETIME_SECONDS"],
    usedBy: "gateway",
    meaning:
      "An open event stream (`svc listen`) ends after this long with `event: stream_ended` (`max_lifetime`); `svc listen` reconnects at once and resumes.",
  },
  {
    names: ["EVENT_STREAMS_PER_GATEWAY"],
    usedBy: "gateway",
    meaning:
      "Event streams one gateway replica holds open, every project together; past it a stream is refused `429 rate_limited` with `Retry-After: 5`.",
  },
  {
    names: ["EVENT_STREAM_RECHECK_MS"],
    usedBy: "gateway",
    meaning:
      "How often each gateway re-checks the keys and allow-lists of the streams it holds, in one query: a revoked key's or a newly excluded address's stream ends within this (`stream_ended`: `revoked`, `ip_not_allowed`).",
  },
  {
    names: ["PROVIDER_SECRET_KEY"],
    default: "none (connecting a provider account is refused, stored methods' tokens are kept unencrypted; `npm start` makes one in its data folder)",
    usedBy: "payments",
    meaning:
      "32 bytes (64 hex characters or base64) that encrypt connected provider accounts' credentials and stored payment methods' tokens at rest (AES-256-GCM). Required to connect providers; change it only by the rotation in operations.md (\"Keys at rest\").",
  },
  {
    names: ["PROVIDER_SECRET_KEY_OTHER"],
    default: "none",
    usedBy: "payments",
    meaning:
      "During that rotation only: a second key the part opens with, never seals with; at start the part seals anew under `PROVIDER_SECRET_KEY` what only this key opens.",
  },
  {
    names: ["PROVIDER_BASE_URL_ALLOWLIST"],
    default: "none",
    usedBy: "payments",
    meaning:
      "Comma-separated origins (`https://eu-proxy.example.net`, or `http://127.0.0.1:*` for any port of one host) that provider accounts' `api_base_url` may name as written, in test and live mode: a regional proxy, a provider's sandbox, a local stand-in. Any other `api_base_url` must be `https` on a public host (checked when the account is connected and again on every connection; no redirect is followed). An entry with a path, query or credentials refuses to start ([operations.md](operations.md)).",
  },
  {
    names: ["SVC_URL", "SVC_OPERATOR_TOKEN"],
    default: "`<DATA_DIR>/base-url` (written by `npm start`), else `http://127.0.0.1:8080`; `.data/operator-token`",
    usedBy: "`svc` CLI",
    meaning:
      "The deployment the CLI manages.",
  },
];
