import {
  MAX_BODY_BYTES, MAX_JSON_DEPTH, METADATA_KEY_MAX_LENGTH, METADATA_MAX_KEYS, METADATA_VALUE_MAX_LENGTH,
} from './limits.js';
import { allComponents, componentName, type Schema } from './components.js';
import { errorResponses } from './openapi-errors.js';
import { OPERATION_NAMES, OPERATIONS, type Operation } from './operations.js';

const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': { $ref: '#/components/headers/RateLimitLimit' },
  'x-ratelimit-remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'x-ratelimit-reset': { $ref: '#/components/headers/RateLimitReset' },
  'x-request-id': { $ref: '#/components/headers/RequestId' },
};

/** Replaces named schemas below the root by references to components/schemas. */
function withRefs(node: unknown, root: unknown): unknown {
  const name = componentName(node);
  if (name && node !== root) return { $ref: `#/components/schemas/${name}` };
  if (Array.isArray(node)) return node.map((n) => withRefs(n, root));
  if (node && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withRefs(v, root)]));
  }
  return node;
}

const ref = (schema: Schema) => withRefs(schema, undefined);

function parameters(op: Operation): unknown[] {
  const out: unknown[] = [];
  const add = (where: 'path' | 'query', schema: Schema | undefined) => {
    const props = (schema?.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema?.required ?? []) as string[]);
    for (const [name, s] of Object.entries(props)) {
      out.push({ name, in: where, required: where === 'path' || required.has(name), schema: ref(s) });
    }
  };
  add('path', op.params);
  add('query', op.query);
  if (op.idempotent) {
    out.push({
      name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 },
      description: 'Replays the original response for a repeated key; another body with the same key is refused (422).',
    });
  }
  return out;
}

function responses(op: Operation): Record<string, unknown> {
  return {
    [op.success.status]: {
      description: 'Success.',
      headers: RATE_LIMIT_HEADERS,
      content: { 'application/json': { schema: ref(op.success.schema) } },
    },
    ...errorResponses(op, RATE_LIMIT_HEADERS),
  };
}

/**
 * The machine-readable description of /v1, from the operation table and its schemas. `serverUrl`
 * is where clients reach this deployment (generated clients use it as their base URL); `spdx` is
 * the project's licence as package.json declares it, read by the caller so the contract reads no
 * files.
 */
export function buildOpenApi(serverUrl: string, spdx: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const path = op.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][op.method.toLowerCase()] = {
      operationId: op.id,
      summary: OPERATION_NAMES[op.id],
      description: op.summary,
      tags: [op.tag],
      parameters: parameters(op),
      ...(op.body && {
        requestBody: { required: !op.bodyOptional, content: { 'application/json': { schema: ref(op.body) } } },
      }),
      responses: responses(op),
    };
  }
  const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment orchestration API',
      version: '1.0.0',
      license: { name: spdx, identifier: spdx },
      description: 'Payments, refunds and payouts routed across providers with failover, a ledger and signed webhooks. '
        + `Request bodies are JSON in UTF-8 of at most ${MAX_BODY_BYTES} bytes, nesting arrays and objects at most `
        + `${MAX_JSON_DEPTH} levels deep; metadata holds at most ${METADATA_MAX_KEYS} keys of at most `
        + `${METADATA_KEY_MAX_LENGTH} characters with string values of at most ${METADATA_VALUE_MAX_LENGTH} characters. `
        + 'Card numbers and security codes are refused anywhere in a request (422 card_data_not_accepted).',
      'x-limits': {
        max_body_bytes: MAX_BODY_BYTES,
        max_json_depth: MAX_JSON_DEPTH,
        metadata_max_keys: METADATA_MAX_KEYS,
        metadata_key_max_length: METADATA_KEY_MAX_LENGTH,
        metadata_value_max_length: METADATA_VALUE_MAX_LENGTH,
      },
    },
    servers: [{ url: serverUrl, description: 'This deployment' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: svc_sk_test_... or svc_sk_live_...' },
      },
      headers: {
        RateLimitLimit: integerHeader('Requests allowed per rolling minute for this key.'),
        RateLimitRemaining: integerHeader('Requests left in the current window.'),
        RateLimitReset: integerHeader('Seconds until the window frees capacity.'),
        RequestId: { description: 'Identifies this request; repeated as request_id in error bodies.', schema: { type: 'string' } },
      },
      schemas: Object.fromEntries(allComponents().map(([name, schema]) => [name, withRefs(schema, schema)])),
    },
  };
}
