import { DomainError } from '../../services/shared/index.js';

// Card numbers and CVVs are never accepted (the service is not in PCI scope). A request carrying
// one is refused before validation, logging or storage; the error names the field, never the value.

const CARD_FIELD = /^(card_?number|card_?no|pan|primary_account_number|cvv2?|cvc2?|csc|cid|card_?verification(_?(code|value))?|security_?code|card_?cvv)$/i;

/** Luhn check over a string of digits. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** 13–19 digits, optionally grouped by spaces or dashes, passing Luhn: the shape of a card number. */
export function looksLikeCardNumber(value: string): boolean {
  if (!/^[\d -]{13,25}$/.test(value)) return false;
  const digits = value.replace(/[ -]/g, '');
  return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);
}

/** The path of the first field that is card data, or undefined. */
export function findCardData(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') return looksLikeCardNumber(value.trim()) ? path.join('.') : undefined;
  if (typeof value === 'number') {
    return Number.isInteger(value) && value > 0 && looksLikeCardNumber(String(value)) ? path.join('.') : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findCardData(value[i], [...path, String(i)]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (CARD_FIELD.test(key)) return [...path, key].join('.');
      const found = findCardData(inner, [...path, key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export function refuseCardData(body: unknown): void {
  const param = findCardData(body);
  if (param !== undefined) {
    throw new DomainError(
      'card_data_not_accepted',
      'Card numbers and security codes are never accepted; send a provider token instead.',
      { param },
    );
  }
}
