import type { Client } from '@connectrpc/connect';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PaymentsService } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import { paymentJson } from '../../services/contract/index.js';
import { DomainError } from '../../services/contract/index.js';
import { toDomainError } from '../http/errors.js';
import { actionPage, errorPage, resultPage, type PagePayment } from './page.js';

/**
 * The sandbox hosted page: where the customer of a test-mode payment on an asynchronous rail
 * (redirect, QR code, bank transfer) approves, declines or lets it expire, as a demo provider's page
 * would let them. It is opened by the customer's browser, so it sits outside /v1 and takes no API
 * key: the unguessable action token in its URL is the only authority (an Authorization header is
 * ignored, never a substitute). Live payments use the provider's own page (next_action.url as the
 * connector returned it); no token, and so no sandbox page, exists for them.
 */

const OUTCOMES = new Set(['approve', 'decline', 'expire']);
const PAGE = '/sandbox/actions/:token';

// The page approves payments: it must not be framed (clickjacking), cached, or leak its token in the
// Referer sent to the merchant's return_url. No script runs; styles are inline.
const HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/**
 * The merchant's return_url with `payment_id` added, so the merchant knows which payment came back
 * (and then asks the API for its status, never trusting the redirect). Only http(s): a
 * `javascript:` URL is never followed or linked.
 */
export function returnTarget(returnUrl: string | undefined, paymentId: string): string | undefined {
  if (!returnUrl) return undefined;
  let url: URL;
  try {
    url = new URL(returnUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.searchParams.set('payment_id', paymentId);
  return url.toString();
}

const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

const TITLES: Record<number, string> = {
  404: 'Payment link not found',
  409: 'This payment link was already used',
  422: 'Choose approve, decline or let it expire',
};

/** Registers the page in its own plugin scope: its form parser and HTML errors stay out of /v1. */
export function sandboxPages(payments: Client<typeof PaymentsService>) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.addContentTypeParser(
      'application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    app.addHook('onSend', async (_request, reply) => {
      reply.headers(HEADERS);
    });
    app.setErrorHandler((err, request, reply) => {
      const e = toDomainError(err);
      if (e.status >= 500) request.log.error({ err }, 'sandbox page failed');
      const message = e.status >= 500 ? 'Something went wrong on our side. Try again in a moment.' : e.message;
      return html(reply, e.status, errorPage(TITLES[e.status] ?? 'The payment page cannot be shown', message));
    });

    app.get<{ Params: { token: string } }>(PAGE, async (request, reply) => {
      // An empty outcome reads the action without completing it.
      const res = await payments.completeCustomerAction({ actionToken: request.params.token, outcome: '' });
      const payment = paymentJson(res.payment!) as unknown as PagePayment;
      if (payment.status === 'processing' && payment.next_action) {
        return html(reply, 200, actionPage(payment, `/sandbox/actions/${encodeURIComponent(request.params.token)}`));
      }
      const returnTo = returnTarget(res.returnUrl, payment.id);
      return html(reply, 200, resultPage(payment, { returnTo, alreadyDone: true }));
    });

    app.post<{ Params: { token: string }; Body: Record<string, unknown> | undefined }>(PAGE, async (request, reply) => {
      const outcome = request.body?.outcome;
      if (typeof outcome !== 'string' || !OUTCOMES.has(outcome)) {
        throw new DomainError('validation_error', 'outcome must be approve, decline or expire.', { param: 'outcome' });
      }
      const res = await payments.completeCustomerAction({ actionToken: request.params.token, outcome });
      const payment = paymentJson(res.payment!) as unknown as PagePayment;
      const returnTo = returnTarget(res.returnUrl, payment.id);
      // 303: the browser follows with a GET, so a reload at the merchant never re-posts the form.
      if (returnTo) return reply.code(303).header('location', returnTo).send();
      return html(reply, 200, resultPage(payment));
    });
  };
}
