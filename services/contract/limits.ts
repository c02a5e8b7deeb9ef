// The input limits that keep every event the service emits far inside the bus's message limit
// (NATS's max_payload, 1 MiB by default). One home: the gateway's schemas and body parser, the
// OpenAPI document and the parts' start-up check all read them from here.

/** A request body above this is refused with 413 before it is parsed. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * A provider's notification (POST /providers/{provider}/webhooks/{account}) above this is refused
 * with 413. Larger than a merchant's body: a provider's event carries its whole object (Adyen
 * batches several), and nothing of it is emitted as it came, so MAX_EVENT_BYTES does not bound it.
 */
export const MAX_PROVIDER_NOTIFICATION_BYTES = 256 * 1024;

/** The request line and header section, as sent (Node's parser is given the same limit). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** Stripe's metadata rule: at most 50 keys, a key at most 40 characters, a value a string of at most 500. */
export const METADATA_MAX_KEYS = 50;
export const METADATA_KEY_MAX_LENGTH = 40;
export const METADATA_VALUE_MAX_LENGTH = 500;

/** No request of the contract nests deeper than this; deeper JSON is refused before it is walked. */
export const MAX_JSON_DEPTH = 8;

/**
 * The largest event a valid request can produce. An event carries one resource serialised as the
 * API shows it: every merchant-supplied string at most as long as it was in the body (JSON text
 * never grows when parsed and written again: escapes in the body are as long or longer), plus the
 * service's own fields (route, attempts, fees, times), a few KiB. Twice the body limit leaves
 * room for both; the parts refuse to start against a bus whose max_payload is below it.
 */
export const MAX_EVENT_BYTES = 2 * MAX_BODY_BYTES;

/**
 * A list page's size, the same over REST and gRPC: 1 to MAX_PAGE_LIMIT, DEFAULT_PAGE_LIMIT when
 * not given. gRPC cannot tell an absent int32 from 0 (proto3), so there 0 means "not given".
 */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;

/** The `limit` query parameter of every REST list (/v1 and /manage/v1). */
export const PAGE_LIMIT_SCHEMA = {
  type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT,
} as const;

/**
 * The largest message a part accepts from another: a provider's notification is forwarded whole
 * with its headers (the gateway bounds both), the largest request a part receives; everything else
 * is bounded by the body limit and fits well inside. Framing and field tags take the last KiB.
 */
export const MAX_RPC_MESSAGE_BYTES = MAX_PROVIDER_NOTIFICATION_BYTES + MAX_HEADER_BYTES + 1024;

/** A dispute's evidence document, decoded (POST /v1/disputes/{id}/documents; docs/disputes.md). */
export const MAX_DISPUTE_DOCUMENT_BYTES = 4 * 1024 * 1024;
/** The one request larger than MAX_RPC_MESSAGE_BYTES a part reads: an evidence document with its few fields. */
export const MAX_DISPUTE_DOCUMENT_RPC_BYTES = MAX_DISPUTE_DOCUMENT_BYTES + 64 * 1024;
