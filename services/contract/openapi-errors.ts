// The error answers of each operation in the OpenAPI document. A client generated from the
// document (openapi-typescript, @hey-api/openapi-ts) types every status the gateway can answer,
// so each one is declared on every operation that can answer it, and the 400s name their codes.
import { ERRORS, type ErrorCode } from './errors.js';
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from './limits.js';
import { COMMON_ERRORS, type Operation } from './operations.js';

/** The registry's codes answered with 400. */
type BadRequestCode = { [C in ErrorCode]: (typeof ERRORS)[C]['status'] extends 400 ? C : never }[ErrorCode];

const hasProperty = (schema: Record<string, unknown> | undefined, name: string) =>
  Object.hasOwn((schema?.properties ?? {}) as object, name);

// A Record over every 400 of the registry: a new one does not compile until it is documented here.
const BAD_REQUESTS: Record<BadRequestCode, { when: string; answers: (op: Operation) => boolean; outsideV1?: string }> = {
  // The router and Node's parser refuse these before any route runs, whatever the path.
  malformed_request: { when: 'the URL is not percent-encoded UTF-8, or the request cannot be read as sent', answers: () => true },
  // Every POST's body goes through the one JSON parser (gateway/http/json-body.ts), body schema or not.
  invalid_json: {
    when: 'the body is not JSON (empty, a byte order mark, a __proto__ key)', answers: (op) => op.method === 'POST',
  },
  json_too_deep: {
    when: `the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, answers: (op) => op.method === 'POST',
  },
  invalid_cursor: { when: 'cursor is not one this list returned', answers: (op) => hasProperty(op.query, 'cursor') },
  test_scenario_not_allowed: {
    when: 'test_scenario with a live key', answers: (op) => hasProperty(op.body, 'test_scenario'),
  },
  // Only POST /providers/{provider}/webhooks/{account}, which providers call and the document leaves out.
  invalid_signature: {
    when: "a provider's notification whose signature does not verify", answers: () => false,
    outsideV1: 'POST /providers/{provider}/webhooks/{account}',
  },
};

/** The registry's 400s that only routes outside /v1 answer, so the document cannot declare them. */
export const BAD_REQUESTS_OUTSIDE_V1 = Object.entries(BAD_REQUESTS).filter(([, c]) => c.outsideV1).map(([code]) => code);

/** The 400 codes an operation can answer, each with when. */
export function badRequestCodes(op: Operation): Array<[BadRequestCode, string]> {
  return (Object.entries(BAD_REQUESTS) as Array<[BadRequestCode, (typeof BAD_REQUESTS)[BadRequestCode]]>)
    .filter(([, c]) => c.answers(op))
    .map(([code, c]) => [code, c.when]);
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  401: 'Missing, malformed, unknown or revoked API key.',
  403: 'Source address not in the project allow-list, or an operation the key is not entitled to.',
  404: 'No such resource for this key\'s project and mode.',
  409: 'Not allowed in the resource\'s current state, or an idempotency conflict.',
  413: `The request body is larger than ${MAX_BODY_BYTES} bytes (body_too_large).`,
  415: 'The body is not JSON in UTF-8 (unsupported_media_type).',
  422: 'Validation failed; error.param names the field (a query or path value that is not valid text included). '
    + 'Also an Idempotency-Key reused with another body.',
  429: 'Rate limit exceeded, or the same Idempotency-Key is still being processed; retry after Retry-After.',
  500: 'Internal error.',
  501: 'The part behind this operation does not offer it yet (a part older than the gateway, mid-upgrade).',
  503: 'A dependency is temporarily unavailable; retry. With an Idempotency-Key, idempotency_in_progress: the ' +
    'outcome is still being decided; retry with the same key after Retry-After, it never moves money twice.',
};

function describe(op: Operation, status: number): string {
  if (status !== 400) return ERROR_DESCRIPTIONS[status] ?? 'Error.';
  return `Bad request; error.code says which: ${badRequestCodes(op).map(([code, when]) => `${code} (${when})`).join(', ')}.`;
}

/** Every error status the operation can answer, in order: its own, every route's, and a POST's body errors. */
export function errorStatuses(op: Operation): number[] {
  // Query and path text is checked on every route (422); every POST may carry a body.
  const everyRoute = [400, 422];
  const bodyErrors = op.method === 'POST' ? [413, 415] : [];
  return [...new Set([...op.errors, ...COMMON_ERRORS, ...everyRoute, ...bodyErrors])].sort((a, b) => a - b);
}

/** The error responses of an operation, each in the contract's envelope. */
export function errorResponses(op: Operation, headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const status of errorStatuses(op)) {
    out[status] = {
      description: describe(op, status),
      headers: status === 401 ? { 'x-request-id': headers['x-request-id'] } : headers,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
}
