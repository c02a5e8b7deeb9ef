import { EVENT_TYPES, PAGE_LIMIT_SCHEMA } from '../../services/contract/index.js';
import { displayName } from '../../services/contract/control-characters.js';
import { MODES } from '../../services/contract/enums.js';
import { OUTBOX_PARTS } from '../clients.js';

// The request schemas of the management API. Numbers an operator types (priority, amounts,
// per_minute) and allow-list entries are left open here and checked by their handlers, so "5",
// 1.5 or a lone string is refused by name rather than coerced or reported as a bare type error.

// Names a stranger gives are printed on the operator's terminal: no control characters (decisions.md).
const name = displayName(200);
export const mode = { type: 'string', enum: [...MODES] } as const;
export const modeQuery = { type: 'object', additionalProperties: false, required: ['mode'], properties: { mode } };
export const optionalModeQuery = { type: 'object', additionalProperties: false, properties: { mode } };

/** A page of merchants or of a merchant's projects, oldest first. */
export const PageQuery = {
  type: 'object', additionalProperties: false, properties: { limit: PAGE_LIMIT_SCHEMA, cursor: { type: 'string' } },
};

export const MerchantBody = {
  type: 'object', additionalProperties: false, required: ['name'], properties: { name },
};
export const RejectBody = {
  type: 'object', additionalProperties: false, required: ['reason'],
  properties: { reason: { type: 'string', minLength: 1, maxLength: 500 } },
};
export const KeyBody = {
  type: 'object', additionalProperties: false, required: ['mode', 'name'], properties: { mode, name },
};
export const RateLimitBody = {
  type: 'object', additionalProperties: false, required: ['per_minute'], properties: { per_minute: {} },
};
export const AllowlistBody = {
  type: 'object', additionalProperties: false, required: ['entries'], properties: { entries: {} },
};

const list = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 50 } as const;
export const RoutingRuleBody = {
  type: 'object',
  additionalProperties: false,
  required: ['mode', 'name', 'priority', 'providers'],
  properties: {
    mode,
    name: { type: 'string', minLength: 1, maxLength: 64 },
    priority: {},
    currencies: list,
    countries: list,
    payment_method_types: list,
    min_amount: {},
    max_amount: {},
    providers: { ...list, minItems: 1 },
    // Checked by routing-risk (docs/routing.md), which names the offending field.
    strategy: {},
    // {share, strategy}: an A/B arm, checked by routing-risk too.
    variant: {},
  },
};
/**
 * What a rule's update may change; absent fields are kept, a null strategy, variant or amount bound
 * removes it, an empty condition list matches any value.
 */
export const RoutingRuleUpdateBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    priority: {}, providers: { ...list, minItems: 1 }, strategy: {}, variant: {},
    currencies: list, countries: list, payment_method_types: list, min_amount: {}, max_amount: {},
  },
};

// Credential values are strings the provider defines; which fields each provider needs is checked by
// payments (services/payments/provider-credentials/fields.ts), which names every missing one.
export const ProviderAccountBody = {
  type: 'object',
  additionalProperties: false,
  required: ['mode', 'provider', 'name', 'credentials'],
  properties: {
    mode,
    provider: { type: 'string', minLength: 1, maxLength: 64 },
    name: displayName(100),
    credentials: {
      type: 'object', maxProperties: 10,
      additionalProperties: { type: 'string', maxLength: 4096 },
      propertyNames: { maxLength: 64 },
    },
    payment_method_types: list,
    currencies: list,
    countries: list,
    fee_fixed: {},
    fee_bps: {},
  },
};

const events = {
  type: 'array', minItems: 1, maxItems: EVENT_TYPES.length + 1, items: { type: 'string', minLength: 1, maxLength: 64 },
} as const;
const url = { type: 'string', minLength: 1, maxLength: 2048 } as const;
const description = { type: 'string', maxLength: 500 } as const;
/** Deliveries per second at most; 0 (on update) removes the limit. */
const max_deliveries_per_second = { type: 'integer', minimum: 0, maximum: 10_000 };
export const EndpointBody = {
  type: 'object', additionalProperties: false, required: ['mode', 'url', 'events'],
  properties: { mode, url, events, description, max_deliveries_per_second },
};
export const EndpointUpdateBody = {
  type: 'object', additionalProperties: false, minProperties: 1, properties: { url, events, description, max_deliveries_per_second },
};
/** Recovery: resend every failed or exhausted delivery of the endpoint created since this time. */
export const RecoverBody = {
  type: 'object', additionalProperties: false, required: ['since'],
  properties: { since: { type: 'string', minLength: 1, maxLength: 64 } },
};
export const DeliveryListQuery = {
  type: 'object', additionalProperties: false, required: ['mode'],
  properties: {
    mode, endpoint_id: { type: 'string', minLength: 1 }, event_type: { type: 'string', minLength: 1 },
    status: { type: 'string', enum: ['pending', 'delivering', 'succeeded', 'failed', 'exhausted'] },
    limit: PAGE_LIMIT_SCHEMA, cursor: { type: 'string' },
  },
};

const part = { type: 'string', enum: OUTBOX_PARTS } as const;
export const partQuery = { type: 'object', additionalProperties: false, required: ['part'], properties: { part } };
export const DeadLetterListQuery = {
  type: 'object', additionalProperties: false, required: ['part'],
  properties: { part, limit: PAGE_LIMIT_SCHEMA, cursor: { type: 'string' } },
};
export const RepublishBody = {
  type: 'object', additionalProperties: false, required: ['since'],
  properties: { since: { type: 'string', minLength: 1, maxLength: 64 } },
};

/** A settlement sync: from when (the provider's batches created since), else all it lists. */
export const SyncBody = {
  type: 'object', additionalProperties: false, properties: { since: { type: 'string', minLength: 1, maxLength: 40 } },
};

// Demo behaviour (payments checks the values and their ranges, naming the field).
const segmentKey = { type: 'string', minLength: 1, maxLength: 64 } as const;
export const DemoBehaviourBody = {
  type: 'object', additionalProperties: false, required: ['mode', 'provider', 'payment_method', 'currency'],
  properties: {
    mode, provider: segmentKey, payment_method: segmentKey, currency: segmentKey, country: segmentKey,
    approval_rate: {}, technical_error_rate: {}, latency_ms: {}, outage_minutes: {}, late_success_rate: {},
  },
};
export const DemoBehaviourClearQuery = {
  type: 'object', additionalProperties: false, required: ['mode'],
  properties: { mode, provider: segmentKey, payment_method: segmentKey, currency: segmentKey, country: segmentKey },
};
