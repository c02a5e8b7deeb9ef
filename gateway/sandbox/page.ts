// The sandbox hosted page's HTML: what a demo provider's page would show the customer. Plain
// HTML forms, no script, so it works with any browser and assistive technology; every value from
// the payment is escaped.

import { formatMoney, fractionDigits } from '../../services/contract/money.js';

/** The fields of a payment (contract JSON) the page shows. */
export interface PagePayment {
  id: string;
  status: string;
  amount: number;
  currency: string;
  description: string | null;
  reference: string | null;
  route: { provider: { name: string; code: string } | null; provider_payment_id: string | null };
  failure: { message: string } | null;
  next_action: { type: string; expiresAt: string | null } | null;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (value: unknown): string => String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]);

/** 1050 EUR minor units reads "€10.50"; an unknown currency falls back to the raw minor units. */
export function formatAmount(amount: number, currency: string): string {
  const digits = fractionDigits(currency);
  if (digits === undefined) return formatMoney(amount, currency);
  return new Intl.NumberFormat('en', {
    style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits,
  }).format(amount / 10 ** digits);
}

/**
 * A moment as people read it, "7 Dec 2026, 04:27 UTC". The page has no script to learn the
 * customer's time zone, so it names the zone it uses rather than leave an ISO timestamp.
 */
export function formatMoment(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return `${at.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })} UTC`;
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1a1a1a; background: #f4f4f6; }
  .banner { margin: 0; padding: .5rem 1rem; background: #5a3e00; color: #fff; text-align: center; }
  main { max-width: 32rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: .5rem; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
  dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
  .actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1.5rem; }
  button, .link { font: inherit; padding: .6rem 1.2rem; border-radius: .35rem; border: 2px solid #1a1a1a;
    background: #fff; color: #1a1a1a; cursor: pointer; text-decoration: none; }
  button.primary { background: #14532d; border-color: #14532d; color: #fff; }
  button:focus-visible, .link:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(title)} · Sandbox payment page</title>
<style>${STYLE}</style>
</head>
<body>
<p class="banner" role="note">Sandbox: this page simulates the payment provider. No real money moves.</p>
<main>
${body}
</main>
</body>
</html>
`;
}

function details(rows: Array<[string, unknown]>): string {
  const items = rows.filter(([, v]) => v !== null && v !== undefined && v !== '');
  return `<dl>\n${items.map(([k, v]) => `  <dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('\n')}\n</dl>`;
}

const HEADINGS: Record<string, string> = {
  redirect: 'Approve this payment',
  qr_code: 'You scanned a QR code to pay',
  display_details: 'Pay by bank transfer',
};

function button(action: string, outcome: string, label: string, primary = false): string {
  return `<form method="post" action="${esc(action)}">
  <input type="hidden" name="outcome" value="${esc(outcome)}">
  <button type="submit"${primary ? ' class="primary"' : ''}>${esc(label)}</button>
</form>`;
}

/** The page awaiting the customer: the payment, then approve, decline or let it expire. */
export function actionPage(p: PagePayment, formAction: string): string {
  const type = p.next_action?.type ?? 'redirect';
  const provider = p.route.provider?.name ?? 'the demo provider';
  const transfer = type === 'display_details'
    ? `<h2>Transfer details</h2>
<p>Send the amount above with this reference. In the sandbox nothing is sent: choose what the bank reports.</p>
${details([
    ['Beneficiary', `${provider} (sandbox)`],
    ['Account', `SANDBOX-${(p.route.provider?.code ?? 'demo').toUpperCase()}`],
    ['Reference', p.route.provider_payment_id ?? p.id],
  ])}`
    : '';
  return layout(HEADINGS[type] ?? HEADINGS.redirect, `<h1>${esc(HEADINGS[type] ?? HEADINGS.redirect)}</h1>
<p>${esc(provider)} asks you to confirm this payment.</p>
${details([
    ['Amount', formatAmount(p.amount, p.currency)],
    ['Description', p.description],
    ['Merchant reference', p.reference],
    ['Payment', p.id],
    ['Expires', formatMoment(p.next_action?.expiresAt)],
  ])}
${transfer}
<div class="actions">
${button(formAction, 'approve', 'Approve payment', true)}
${button(formAction, 'decline', 'Decline payment')}
${button(formAction, 'expire', 'Let it expire')}
</div>`);
}

const RESULTS: Record<string, string> = {
  successful: 'Payment successful',
  authorized: 'Payment authorized',
  failed: 'Payment failed',
  cancelled: 'Payment cancelled',
};

/** Where the customer ends when the merchant gave no return_url, or on a second visit. */
export function resultPage(p: PagePayment, opts: { returnTo?: string; alreadyDone?: boolean } = {}): string {
  const heading = RESULTS[p.status] ?? `Payment ${p.status}`;
  return layout(heading, `<h1>${esc(heading)}</h1>
${opts.alreadyDone ? '<p>This payment no longer awaits you; nothing more to do here.</p>' : ''}
${p.failure ? `<p>${esc(p.failure.message)}</p>` : ''}
${details([['Amount', formatAmount(p.amount, p.currency)], ['Merchant reference', p.reference], ['Payment', p.id]])}
${opts.returnTo ? `<p><a class="link" href="${esc(opts.returnTo)}">Return to the merchant</a></p>` : ''}`);
}

/** An error as a page: the customer's browser reads HTML, not the API's JSON envelope. */
export function errorPage(title: string, message: string): string {
  return layout(title, `<h1>${esc(title)}</h1>\n<p>${esc(message)}</p>`);
}
