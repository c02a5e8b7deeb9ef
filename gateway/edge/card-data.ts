import type { FastifyInstance, FastifyRequest } from 'fastify';
import { containsCardNumber, findCardData } from '../../services/contract/card-data.js';
import { DomainError } from '../../services/contract/errors.js';
import type { Logger } from '../../services/platform/logger.js';

// The gateway's use of the one card-data detector (services/contract/card-data.ts): every
// /v1 request is searched, body, query and path alike, before validation, so a refused value is
// never echoed in a validation message, stored or published. The error names the field, never
// the value. Fastify logs each request's URL before any hook runs, so the request logger withholds
// a URL that holds a card number.

export function refuseCardData(value: unknown, prefix: string[] = []): void {
  const param = findCardData(value, prefix);
  if (param !== undefined) {
    throw new DomainError(
      'card_data_not_accepted',
      'Card numbers and security codes are never accepted; send a provider token instead.',
      { param: param || undefined },
    );
  }
}

/**
 * Refuses card data in the path, query and body of the operations of the scope it is installed in
 * (/v1); the scope's 404 answers route_not_found whatever the request holds, as it always has.
 */
export function installCardDataCheck(api: FastifyInstance): void {
  api.addHook('preValidation', async (request) => {
    if (!request.routeOptions.config?.operationId) return;
    refuseCardData(request.params);
    refuseCardData(request.query);
    if (request.body !== undefined) refuseCardData(request.body);
  });
}

function decoded(url: string): string {
  try {
    return decodeURIComponent(url.replace(/\+/g, ' '));
  } catch {
    return url;
  }
}

/** Fastify's request serializer, except that a URL holding a card number is not written out. */
export function withCardNumbersWithheld(logger: Logger): Logger {
  return logger.child({}, {
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        url: containsCardNumber(decoded(req.url)) ? '(withheld: the URL holds a card number)' : req.url,
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  });
}
