import type { JsonObject } from '@bufbuild/protobuf';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Failure } from '../../proto/gen/svc/common/v1/common_pb.js';
import { isDeclineReason } from './decline-reasons.js';
import { FAILURE_CATEGORIES } from './enums.js';
import type { FailureJson } from './resources.js';

// How the serialisers turn proto fields into the contract's JSON values, once for all of them.

/**
 * A timestamp the contract requires. Every record the parts store has it, and their proto
 * builders always set it; a message without one is a bug, not a value to show as null.
 */
export function iso(t: Timestamp | undefined): string {
  if (!t) throw new Error('a required timestamp is missing from the message');
  return timestampDate(t).toISOString();
}

export const isoOrNull = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);

export const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

/**
 * A resource's metadata: string values, the only kind the gateway's schema and refuseUnsafeRequest
 * let in, so the contract can promise strings to clients typed from it.
 */
export function metadataJson(m: JsonObject | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(m ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/**
 * One of the contract's enumerations, as proto carries it: a string. The parts write these fields
 * from the same lists (enums.ts), so this names the enumeration for the compiler without a check
 * that could turn a serialiser into a thrower.
 */
export function asOneOf<const T extends readonly string[]>(_values: T, value: string): T[number] {
  return value as T[number];
}

export function failureJson(f: Failure | undefined): FailureJson | null {
  return f ? {
    code: f.code, category: asOneOf(FAILURE_CATEGORIES, f.category), message: f.message,
    decline_reason: isDeclineReason(f.declineReason) ? f.declineReason : null,
  } : null;
}
