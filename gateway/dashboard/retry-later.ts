import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../services/contract/index.js';

// The dashboard's refusals that a client may retry after a wait: 429 rate_limited with Retry-After.
// The wait travels with the error, so code without the reply (the password hashing bound, deep in
// passwords.ts) refuses the same way as a route's hook does; the scope's onError hook, which Fastify
// runs before the error handler writes the envelope, turns it into the header.

export class RetryLater extends DomainError {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super('rate_limited', message);
  }
}

export function installRetryAfter(scope: FastifyInstance): void {
  scope.addHook('onError', async (_request, reply, error) => {
    if (error instanceof RetryLater) reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  });
}
