import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Interceptor, Transport } from '@connectrpc/connect';
import { Health } from '../../proto/gen/grpc/health/v1/health_pb.js';
import { serviceError } from '../contract/errors.js';

// Who may call a part's gRPC services. Every caller presents `authorization: Bearer <token>`; the
// part knows callers by the SHA-256 of their token (INTERNAL_CALLERS holds no token itself), so
// the list can sit in any Secret without handing out what it admits. The gateway and the parts
// present INTERNAL_TOKEN, the platform's own caller, entitled to every project; another internal
// service may act only for the projects listed for it. Health checks need no credential: probes
// carry none.

/** One caller a part admits: its name (for logs), its token's hash, and what it may act for. */
export interface InternalCaller {
  name: string;
  tokenSha256: Buffer;
  /** '*': every project (the gateway and the parts); otherwise these project ids only. */
  projects: '*' | readonly string[];
}

/** The name of the caller INTERNAL_TOKEN identifies: the gateway and the parts themselves. */
export const PLATFORM_CALLER = 'svc';
/** Shortest INTERNAL_TOKEN accepted: guessing one must be out of reach. */
export const MIN_INTERNAL_TOKEN_LENGTH = 32;

export function sha256(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A fresh token, for a process that runs every part itself (`npm start`, the tests' stacks). */
export function newInternalToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Every caller a part admits: the platform by its own token, then the configured ones. */
export function admittedCallers(internalToken: string, others: readonly InternalCaller[]): InternalCaller[] {
  return [{ name: PLATFORM_CALLER, tokenSha256: sha256(internalToken), projects: '*' }, ...others];
}

/** The caller whose token this is; every entry is compared, in constant time, whatever matches. */
export function findCaller(callers: readonly InternalCaller[], token: string): InternalCaller | undefined {
  const presented = sha256(token);
  let found: InternalCaller | undefined;
  for (const caller of callers) {
    if (timingSafeEqual(caller.tokenSha256, presented) && !found) found = caller;
  }
  return found;
}

function bearer(header: string | null): string | undefined {
  const match = /^Bearer ([^\s]+)$/i.exec(header?.trim() ?? '');
  return match?.[1];
}

/** The project a request acts for, from the `scope` every scoped request carries. */
function projectOf(message: unknown): string | undefined {
  const scope = (message as { scope?: { projectId?: string } } | undefined)?.scope;
  return scope?.projectId || undefined;
}

/** PERMISSION_DENIED unless the caller may act for the request's project; unscoped requests are the platform's. */
function requireEntitled(caller: InternalCaller, message: unknown): void {
  if (caller.projects === '*') return;
  const project = projectOf(message);
  if (project !== undefined && caller.projects.includes(project)) return;
  throw serviceError('forbidden', project === undefined
    ? `internal caller ${caller.name} may only make requests scoped to its projects`
    : `internal caller ${caller.name} may not act for project ${project}`);
}

async function* entitledStream<T>(caller: InternalCaller, messages: AsyncIterable<T>): AsyncIterable<T> {
  for await (const m of messages) {
    requireEntitled(caller, m);
    yield m;
  }
}

/**
 * The server side: UNAUTHENTICATED without a known token, PERMISSION_DENIED outside the caller's
 * projects. Runs before every other interceptor, so nothing of a refused call is read further.
 */
export function authenticateCallers(callers: readonly InternalCaller[]): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName === Health.typeName) return next(req);
    const token = bearer(req.header.get('authorization'));
    const caller = token === undefined ? undefined : findCaller(callers, token);
    if (!caller) {
      throw serviceError('unauthorized', 'an internal credential is required: authorization: Bearer <token> (docs/operations.md, "Internal callers")');
    }
    if (!req.stream) {
      requireEntitled(caller, req.message);
      return next(req);
    }
    return next({ ...req, message: entitledStream(caller, req.message) });
  };
}

/** A transport that presents `token` on every call: how the gateway and the parts call a part. */
export function withCredential(transport: Transport, token: string): Transport {
  const signed = (header: ConstructorParameters<typeof Headers>[0] | undefined) => {
    const headers = new Headers(header);
    headers.set('authorization', `Bearer ${token}`);
    return headers;
  };
  return {
    unary: (method, signal, timeoutMs, header, input, contextValues) =>
      transport.unary(method, signal, timeoutMs, signed(header), input, contextValues),
    stream: (method, signal, timeoutMs, header, input, contextValues) =>
      transport.stream(method, signal, timeoutMs, signed(header), input, contextValues),
  };
}
