import { toJson, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { serviceError } from './errors.js';
import { METADATA_KEY_MAX_LENGTH, METADATA_MAX_KEYS, METADATA_VALUE_MAX_LENGTH } from './limits.js';
import { findCardData } from './card-data.js';

// The gateway refuses card data and oversized metadata before anything is stored. Internal callers
// reach the parts over gRPC without it, so the parts that store and publish a request's text
// (payments, refunds, payouts) ask the same questions again, with the same detector and limits:
// a card number is never stored, and no event grows past what the bus was checked to carry.

function metadataProblem(metadata: unknown): string | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  const entries = Object.entries(metadata as Record<string, unknown>);
  if (entries.length > METADATA_MAX_KEYS) return `metadata has at most ${METADATA_MAX_KEYS} keys`;
  for (const [key, value] of entries) {
    if (key.length > METADATA_KEY_MAX_LENGTH) return `metadata keys are at most ${METADATA_KEY_MAX_LENGTH} characters`;
    if (typeof value !== 'string' || value.length > METADATA_VALUE_MAX_LENGTH) {
      return `metadata values are strings of at most ${METADATA_VALUE_MAX_LENGTH} characters`;
    }
  }
  return undefined;
}

/** Throws the contract's error for card data anywhere in the request, or metadata past its limits. */
export function refuseUnsafeRequest<D extends DescMessage>(schema: D, request: MessageShape<D>): void {
  const json = toJson(schema, request, { useProtoFieldName: true }) as Record<string, unknown>;
  delete json.scope;
  delete json.idempotency_key;
  const param = findCardData(json);
  if (param !== undefined) {
    throw serviceError(
      'card_data_not_accepted', 'Card numbers and security codes are never accepted; send a provider token instead.', { param },
    );
  }
  const problem = metadataProblem(json.metadata);
  if (problem) throw serviceError('validation_error', problem, { param: 'metadata' });
}
