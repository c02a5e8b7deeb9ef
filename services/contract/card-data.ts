// Card numbers and security codes are never accepted (the service stays out of PCI scope). This
// is the one detector: the gateway refuses requests with it before anything is logged, stored or
// published, and any part may run it on what it receives. It finds a card number however a person
// could type or paste one: any Unicode digits, grouped by spaces (any kind), dashes, dots, slashes
// or underscores, inside longer text, as a key or a value.

/** Luhn check over a string of ASCII digits. */
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

const DECIMAL_DIGIT = /\p{Nd}/u;

/** The value of a Unicode decimal digit: Unicode lays every digit set out as 0 to 9 in a row. */
function digitValue(cp: number): number {
  let start = cp;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/**
 * NFKC (full-width and mathematical digits, compatibility spaces) and every other decimal digit
 * (Arabic-Indic, Devanagari, ...) as ASCII, so one set of rules covers every way of writing digits.
 */
export function normaliseText(text: string): string {
  const nfkc = text.normalize('NFKC');
  if (/^[\x00-\x7f]*$/.test(nfkc)) return nfkc;
  return nfkc.replace(/\p{Nd}/gu, (d) => (d >= '0' && d <= '9' ? d : String(digitValue(d.codePointAt(0)!))));
}

// What people group digits with: any space or line break, dashes, dots, slashes, underscores and
// invisible format characters (a zero-width space pasted from a web page). Up to three in a row,
// so "4242 - 4242" and "\r\n" still join groups; a colon, a comma or a letter ends a number.
const GROUPED_DIGITS = /\d+(?:[\s\p{Zs}\p{Pd}\p{Cf}./\\_]{1,3}\d+)*/gu;

/**
 * Which digit strings count as a card number. Cards are 13 to 19 digits and pass Luhn; no card
 * number starts with 0; the only cards starting with 1 (UATP) have 15 digits, and the only
 * 13-digit cards (old Visa) start with 4. The last two keep millisecond timestamps (13 digits
 * starting with 1) and zero-padded order numbers from being mistaken for cards.
 */
function isCardDigits(d: string): boolean {
  if (d.length < 13 || d.length > 19 || d[0] === '0') return false;
  if (d[0] === '1' && d.length !== 15) return false;
  if (d.length === 13 && d[0] !== '4') return false;
  return passesLuhn(d);
}

/**
 * Whether the text holds a card number anywhere. A run of digit groups is tried group-aligned (the
 * card may be followed by an expiry date or a CVV in the same run); one unbroken run of digits
 * counts only as a whole, since any 13 digits out of a long id pass Luhn one time in ten.
 */
export function containsCardNumber(text: string): boolean {
  const normal = normaliseText(text);
  for (const m of normal.matchAll(GROUPED_DIGITS)) {
    const groups = [...m[0].matchAll(/\d+/g)].map((g) => ({
      digits: g[0], start: m.index! + g.index!, end: m.index! + g.index! + g[0].length,
    }));
    for (let first = 0; first < groups.length; first++) {
      let digits = '';
      for (let last = first; last < groups.length && digits.length < 19; last++) {
        digits += groups[last].digits;
        if (!isCardDigits(digits)) continue;
        // Several groups are a typed number only when the first starts and the last ends a word:
        // a hex id's "…8af4-489876492035" joins a letter-bound digit to the next group, and one
        // in five hundred random UUIDs would read as a card. A single group counts wherever it is.
        if (first === last || (!glued(normal, groups[first].start - 1) && !glued(normal, groups[last].end))) return true;
      }
    }
  }
  return false;
}

/** Whether the character at `i` is a letter, so the digits next to it belong to a word. */
function glued(text: string, i: number): boolean {
  return i >= 0 && i < text.length && /\p{L}/u.test(text[i]);
}

/** A whole value that is a card number and nothing else (grouped or not). */
export function looksLikeCardNumber(value: string): boolean {
  const text = normaliseText(value).trim();
  const m = text.match(GROUPED_DIGITS);
  return m !== null && m[0] === text && isCardDigits(text.replace(/\D/g, ''));
}

// Names meaning a card number or a security code, compared as lower-case words without separators
// (card_number, card-number, CardNumber, "Card Number" are one name). A name ending in one of the
// long forms is refused (credit_card_number, payer_cvv); the short ones only as the whole name.
const CARD_NAME_ENDINGS = [
  'cardnumber', 'cardnum', 'cardnumbr', 'ccnumber', 'primaryaccountnumber', 'cardverificationcode',
  'cardverificationvalue', 'cardverification', 'securitycode', 'cvv', 'cvv2', 'cvc', 'cvc2', 'cvvcode', 'cvccode',
];
const SHORT_CARD_NAMES = ['cardno', 'cardnr', 'cardnbr', 'ccno', 'ccnum', 'ccnr', 'cvn', 'ccv'];
const CARD_NAMES = new Set([...SHORT_CARD_NAMES, 'pan', 'cid', 'csc', 'creditcard', 'debitcard']);

/** The words of a name: split at non-alphanumerics and at lower-to-upper case changes. */
function nameWords(name: string): string[] {
  return normaliseText(name)
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

// Requests carry the same few field names again and again: each name is judged once. Merchants'
// metadata keys are many, so the memory stops growing at a bound and judges the rest afresh.
const judged = new Map<string, boolean>();
const JUDGED_MAX = 2_000;

export function isCardFieldName(name: string): boolean {
  const known = judged.get(name);
  if (known !== undefined) return known;
  const card = judgeFieldName(name);
  if (judged.size < JUDGED_MAX) judged.set(name, card);
  return card;
}

function judgeFieldName(name: string): boolean {
  const words = nameWords(name);
  const joined = words.join('');
  if (CARD_NAMES.has(joined) || CARD_NAME_ENDINGS.some((end) => joined.endsWith(end))) return true;
  // "customer card no", "payer_cc_nr": a short name as the last words of a longer one (not pan or
  // cid, which end too many innocent names).
  for (let i = 1; i < words.length; i++) if (SHORT_CARD_NAMES.includes(words.slice(i).join(''))) return true;
  return false;
}

/** A path for error.param: dotted field names, array indexes as numbers. */
export type FieldPath = ReadonlyArray<string>;

/**
 * The path of the first place holding card data, or undefined: a key named like card data (its
 * path), a key holding a card number (the path of the object, so the error never echoes it), a
 * string or a whole number holding one.
 */
export function findCardData(value: unknown, path: FieldPath = []): string | undefined {
  return search(value, [...path]);
}

/** findCardData over one path it extends and shortens as it goes, joined only for the answer. */
function search(value: unknown, path: string[]): string | undefined {
  if (typeof value === 'string') return containsCardNumber(value) ? path.join('.') : undefined;
  if (typeof value === 'number') {
    return Number.isInteger(value) && value > 0 && isCardDigits(String(value)) ? path.join('.') : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(String(i));
      const found = search(value[i], path);
      path.pop();
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (containsCardNumber(key)) return path.join('.');
      path.push(key);
      const found = isCardFieldName(key) ? path.join('.') : search((value as Record<string, unknown>)[key], path);
      path.pop();
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
