import { Code, ConnectError } from '@connectrpc/connect';

// The one registry of domain errors: each code's HTTP status, error.type and gRPC code.
// Services throw these as ConnectErrors; the gateway turns them back into the contract's envelope.
export const ERRORS = {
  unauthorized: { status: 401, type: 'authentication_error', grpc: Code.Unauthenticated },
  invalid_api_key: { status: 401, type: 'authentication_error', grpc: Code.Unauthenticated },
  ip_not_allowed: { status: 403, type: 'permission_error', grpc: Code.PermissionDenied },
  forbidden: { status: 403, type: 'permission_error', grpc: Code.PermissionDenied },
  // The dashboard's own API (gateway/dashboard/): a wrong email or password, said alike so neither is revealed;
  // a state-changing call without its session's x-csrf-token; an email that already has an account; a mailed
  // link (password reset, invitation) that is unknown, used or expired.
  invalid_credentials: { status: 401, type: 'authentication_error', grpc: Code.Unauthenticated },
  invalid_csrf_token: { status: 403, type: 'permission_error', grpc: Code.PermissionDenied },
  email_taken: { status: 409, type: 'invalid_request_error', grpc: Code.AlreadyExists },
  invalid_token: { status: 422, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  test_scenario_not_allowed: { status: 400, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  invalid_json: { status: 400, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  unsupported_media_type: { status: 415, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  body_too_large: { status: 413, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  validation_error: { status: 422, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  card_data_not_accepted: { status: 422, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  invalid_cursor: { status: 400, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  resource_not_found: { status: 404, type: 'not_found_error', grpc: Code.NotFound },
  route_not_found: { status: 404, type: 'not_found_error', grpc: Code.NotFound },
  invalid_state_transition: { status: 409, type: 'state_error', grpc: Code.FailedPrecondition },
  live_mode_not_verified: { status: 409, type: 'state_error', grpc: Code.FailedPrecondition },
  insufficient_settled_funds: { status: 409, type: 'state_error', grpc: Code.FailedPrecondition },
  rate_limited: { status: 429, type: 'rate_limit_error', grpc: Code.ResourceExhausted },
  // A documented per-project cap (webhook endpoints, API keys, open event streams) is reached; the message names it.
  limit_reached: { status: 409, type: 'invalid_request_error', grpc: Code.ResourceExhausted },
  idempotency_key_reused: { status: 422, type: 'idempotency_error', grpc: Code.InvalidArgument },
  // 429 while a concurrent request holds the key at the gateway; 503 while the resource the key is
  // bound to is still being decided (the request that created it died or lost its gateway).
  idempotency_in_progress: { status: 429, type: 'idempotency_error', grpc: Code.Aborted, alternative: 503 },
  // A provider refused an operation on money it holds (capturing or releasing an authorization): nothing changed here.
  provider_declined: { status: 409, type: 'provider_error', grpc: Code.FailedPrecondition },
  // The dispute's provider cannot do this action through its API (Mollie's chargebacks are read only):
  // nothing was sent, nothing changed; the merchant answers at the provider (docs/disputes.md).
  dispute_action_unsupported: { status: 422, type: 'provider_error', grpc: Code.FailedPrecondition },
  // A provider gave no usable answer (unreachable, its own error, no answer in time): nothing changed here, and the
  // same request may be sent again, since the provider sees the same operation id and never acts twice.
  provider_unavailable: { status: 503, type: 'provider_error', grpc: Code.Unavailable },
  // A provider's notification (webhook) whose signature the account's secret does not verify, or that is stale or
  // unreadable: refused, and nothing changed.
  invalid_signature: { status: 400, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  // The deployment lacks a setting the operation needs (e.g. PROVIDER_SECRET_KEY); the message names it.
  not_configured: { status: 503, type: 'internal_error', grpc: Code.FailedPrecondition },
  service_unavailable: { status: 503, type: 'internal_error', grpc: Code.Unavailable },
  internal_error: { status: 500, type: 'internal_error', grpc: Code.Internal },
  not_implemented: { status: 501, type: 'internal_error', grpc: Code.Unimplemented },
  // Raised by the HTTP layer itself (gateway/http/transport-errors.ts), before a route is reached.
  json_too_deep: { status: 400, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  malformed_request: { status: 400, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  request_timeout: { status: 408, type: 'invalid_request_error', grpc: Code.DeadlineExceeded },
  url_too_long: { status: 414, type: 'invalid_request_error', grpc: Code.InvalidArgument },
  headers_too_large: { status: 431, type: 'invalid_request_error', grpc: Code.InvalidArgument },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export interface ErrorOptions {
  param?: string;
  details?: unknown;
  /** The registry's alternative status of this code, where it has one. */
  status?: number;
}

/** A contract error: its code picks status and type from the registry. */
export class DomainError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(readonly code: ErrorCode, message: string, readonly options: ErrorOptions = {}) {
    super(message);
    const entry: { status: number; alternative?: number } = ERRORS[code];
    this.status = options.status !== undefined && options.status === entry.alternative ? options.status : entry.status;
    this.type = ERRORS[code].type;
  }
}

const CODE_HEADER = 'svc-error-code';
const PARAM_HEADER = 'svc-error-param';
const STATUS_HEADER = 'svc-error-status';

/** What a service throws: the gRPC code for gRPC callers, the contract code in metadata for the gateway. */
export function toConnectError(err: DomainError): ConnectError {
  const metadata = new Headers({ [CODE_HEADER]: err.code });
  if (err.options.param) metadata.set(PARAM_HEADER, err.options.param);
  if (err.status !== ERRORS[err.code].status) metadata.set(STATUS_HEADER, String(err.status));
  return new ConnectError(err.message, ERRORS[err.code].grpc, metadata);
}

export function serviceError(code: ErrorCode, message: string, options: ErrorOptions = {}): ConnectError {
  return toConnectError(new DomainError(code, message, options));
}

/** The commonest refusal: 422 validation_error naming the field at fault. */
export function invalidField(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

function isErrorCode(value: string | null): value is ErrorCode {
  return value !== null && Object.hasOwn(ERRORS, value);
}

/** Turns whatever a peer threw back into a DomainError; unknown failures stay opaque. */
export function fromConnectError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  const ce = ConnectError.from(err);
  const code = ce.metadata.get(CODE_HEADER);
  if (isErrorCode(code)) {
    const status = ce.metadata.get(STATUS_HEADER);
    return new DomainError(code, ce.rawMessage, {
      param: ce.metadata.get(PARAM_HEADER) ?? undefined,
      ...(status !== null && { status: Number(status) }),
    });
  }
  // The part could not be reached, did not answer in time, or went away mid-call (a stream its
  // process reset as it died or shut down): all worth a retry, never a plain 500.
  if (ce.code === Code.Unavailable || ce.code === Code.DeadlineExceeded || ce.code === Code.Canceled) {
    return new DomainError('service_unavailable', 'A dependency is temporarily unavailable; retry the request.');
  }
  return new DomainError('internal_error', 'An internal error occurred.');
}
