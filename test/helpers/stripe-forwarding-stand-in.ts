// Stripe's Forwarding API in the Stripe stand-in (POST /v1/forwarding/requests), written from its
// public reference (https://docs.stripe.com/api/forwarding/forwarding_requests/create and the
// Vault and Forward guide): it holds a card for each vaulted PaymentMethod, fills the card fields
// of the destination's request (left empty by the caller, as Stripe's example shows) at the paths
// the destination's configuration names, calls the destination over loopback, and answers a
// forwarding.request whose request_details and response_details are redacted. It is the only
// part of a test run that ever sees the card number; `forwarded` is its own record of what it sent.

/** A card as Stripe's vault holds it for a PaymentMethod. */
export interface VaultedCard {
  number: string;
  expMonth: string;
  expYear: string;
  cvc: string;
  name: string;
}

/** What the stand-in sent to a destination, card included: its own record, never the stack's. */
export interface ForwardedRecord {
  paymentMethod: string;
  url: string;
  sentBody: string;
  status: number;
}

type Answer = { status: number; body: Record<string, unknown> };

/**
 * Where each replacement goes in a destination's JSON body, and as what JSON type: Stripe
 * configures this per destination at onboarding. Adyen's raw-card fields (Checkout API /payments
 * paymentMethod) are strings; Checkout.com's (/payments source) take the expiry as integers.
 */
type Fill = Array<[string, (c: VaultedCard) => string | number]>;
interface Destination { object: (body: Record<string, any>) => Record<string, unknown> | undefined; fields: Record<string, Fill> }
const ADYEN: Destination = {
  object: (b) => b.paymentMethod,
  fields: {
    card_number: [['number', (c) => c.number]],
    card_expiry: [['expiryMonth', (c) => c.expMonth], ['expiryYear', (c) => c.expYear]],
    card_cvc: [['cvc', (c) => c.cvc]],
    cardholder_name: [['holderName', (c) => c.name]],
  },
};
const CHECKOUT: Destination = {
  object: (b) => (b.source?.type === 'card' ? b.source : undefined),
  fields: {
    card_number: [['number', (c) => c.number]],
    card_expiry: [['expiry_month', (c) => Number(c.expMonth)], ['expiry_year', (c) => Number(c.expYear)]],
    card_cvc: [['cvv', (c) => c.cvc]],
    cardholder_name: [['name', (c) => c.name]],
  },
};
const DESTINATIONS = [ADYEN, CHECKOUT];
const REPLACEMENTS = new Set([...Object.keys(ADYEN.fields), 'request_signature']);

const invalid = (message: string, param?: string): Answer => ({
  status: 400, body: { error: { type: 'invalid_request_error', message, ...(param && { param }) } },
});

/** Stripe's redaction of a card's data wherever it appears in a stored request or response. */
function redact(text: string, card: VaultedCard): string {
  const masked = `${card.number.slice(0, 6)}******${card.number.slice(-4)}`;
  return text.split(card.number).join(masked).split(`"${card.cvc}"`).join('"***"');
}

/** Header values that authenticate at the destination are redacted too. */
const SECRET_HEADER = /api-key|authorization|secret/i;

export function createForwardingEndpoint(state: {
  cards: Map<string, VaultedCard>;
  forwarded: ForwardedRecord[];
  nextId: (prefix: string) => string;
  /** Answers still to lose: the destination is called and answers, then Stripe answers a 500. */
  lose: { answers: number };
}) {
  function fill(body: string, card: VaultedCard, replacements: string[]): string | undefined {
    let json: Record<string, any>;
    try {
      json = JSON.parse(body) as typeof json;
    } catch {
      return undefined;
    }
    const dest = DESTINATIONS.find((d) => d.object(json));
    const target = dest?.object(json);
    if (!dest || !target) return undefined;
    for (const r of replacements) for (const [field, value] of dest.fields[r] ?? []) if (field in target) target[field] = value(card);
    return JSON.stringify(json);
  }

  return async function create(p: Record<string, unknown>): Promise<Answer> {
    const pmId = String(p.payment_method ?? '');
    const url = String(p.url ?? '');
    const replacements = Object.values((p.replacements as Record<string, string> | string[] | undefined) ?? {});
    const request = (p.request ?? {}) as { body?: string; headers?: Record<string, { name: string; value: string }> };
    if (!pmId) return invalid('Missing required param: payment_method.', 'payment_method');
    if (!url) return invalid('Missing required param: url.', 'url');
    if (replacements.length === 0 || replacements.some((r) => !REPLACEMENTS.has(r))) return invalid('Invalid replacements', 'replacements');
    // The config of this account enables loopback destinations only.
    if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) return invalid(`The url ${url} is not supported by the forwarding config`, 'url');
    const card = state.cards.get(pmId);
    if (!card) {
      return { status: 400, body: { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_method', message: `No such PaymentMethod: '${pmId}'` } } };
    }
    const sentBody = fill(request.body ?? '', card, replacements);
    if (sentBody === undefined) return invalid('The request body has no card fields to replace', 'request[body]');
    const headers = Object.values(request.headers ?? {});
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...Object.fromEntries(headers.map((h) => [h.name, h.value])), 'content-type': 'application/json' },
      body: sentBody,
    });
    const text = await res.text();
    state.forwarded.push({ paymentMethod: pmId, url, sentBody, status: res.status });
    if (state.lose.answers > 0) {
      state.lose.answers--;
      return { status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } };
    }
    return {
      status: 200,
      body: {
        id: state.nextId('fwdreq'), object: 'forwarding.request', created: Math.floor(Date.now() / 1000), livemode: false,
        payment_method: pmId, url, replacements, metadata: {},
        request_context: { destination_duration: 1, destination_ip_address: '127.0.0.1' },
        request_details: {
          body: redact(sentBody, card), http_method: 'POST',
          headers: headers.map((h) => ({ name: h.name, value: SECRET_HEADER.test(h.name) ? '[REDACTED]' : h.value })),
        },
        response_details: {
          status: res.status, body: redact(text, card),
          headers: [...res.headers.entries()].map(([name, value]) => ({ name, value })),
        },
      },
    };
  };
}
