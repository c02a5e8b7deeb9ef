// The body of POST /v2/checkout/orders for an attempt
// (https://developer.paypal.com/docs/api/orders/v2/#orders_create): one purchase unit carrying our
// attempt id as custom_id (webhooks and order details echo it) and the payment id as reference_id,
// intent CAPTURE, or AUTHORIZE when the merchant captures later, and the PayPal wallet as payment
// source with the merchant's return_url for both the approval and the cancellation.
import type { OrderRequest } from '@paypal/paypal-server-sdk';
import { toPayPalValue } from './amounts.js';
import { CONDITIONS, type PayPalRule } from './errors.js';
import type { AuthorizeRequest } from '../types.js';

/**
 * The request for an attempt, or the rule that refuses it before anything is sent. PayPal itself
 * shows the payer nothing of ours but the amount: no description or items are sent.
 */
export function orderRequest(req: AuthorizeRequest): OrderRequest | PayPalRule {
  if (req.methodType !== 'wallet') return CONDITIONS.method_not_supported;
  const value = toPayPalValue(req.amount, req.currency);
  if (value === undefined) return CONDITIONS.amount_not_representable;
  if (!req.returnUrl) return CONDITIONS.no_return_url;
  const body = {
    intent: req.captureMethod === 'manual' ? 'AUTHORIZE' : 'CAPTURE',
    purchaseUnits: [{
      referenceId: req.paymentId,
      customId: req.attemptId,
      amount: { currencyCode: req.currency.toUpperCase(), value },
    }],
    paymentSource: {
      paypal: {
        experienceContext: {
          returnUrl: req.returnUrl,
          cancelUrl: req.returnUrl,
          // PAY_NOW: the customer's approval is the payment (capture follows at once); CONTINUE for a hold.
          userAction: req.captureMethod === 'manual' ? 'CONTINUE' : 'PAY_NOW',
          shippingPreference: 'NO_SHIPPING',
        },
      },
    },
  };
  return body as unknown as OrderRequest;
}

export const isOrderRequest = (r: OrderRequest | PayPalRule): r is OrderRequest => 'purchaseUnits' in r;

/** PayPal-Request-Id of the call that completes an approved order (its capture or authorization). */
export const completionRequestId = (attemptId: string, intent: string | undefined) =>
  `${attemptId}-${intent === 'AUTHORIZE' ? 'authorize' : 'capture'}`;
