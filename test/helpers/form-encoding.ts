// application/x-www-form-urlencoded with bracketed keys, as Stripe's API takes it:
// metadata[payment_id]=pay_1&automatic_payment_methods[enabled]=true&expand[0]=latest_charge.

/** Parses a form body into nested objects (numeric brackets make arrays); values stay strings. */
export function parseForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.split(/\[|\]\[|\]/).filter((s, i) => i === 0 || s !== '');
    let node: Record<string, unknown> = out;
    path.forEach((segment, i) => {
      if (i === path.length - 1) {
        node[segment] = value;
        return;
      }
      const next = path[i + 1];
      node[segment] ??= /^\d+$/.test(next) ? [] : {};
      node = node[segment] as Record<string, unknown>;
    });
  }
  return out;
}
