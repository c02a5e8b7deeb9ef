import { containsCardNumber, type DomainError } from '../../services/contract/index.js';

// What the request log keeps of a call (edge/request-log.ts), withheld where it could carry what
// must never be stored: a card number anywhere (the card-data check refuses such a request, and its
// path or an error message quoting a value would still hold it) and secrets in the shapes this
// product and its providers issue. Bodies and query strings are never kept at all.

const MAX_PATH = 500;
const MAX_MESSAGE = 500;

/** Secrets by their issuers' prefixes: API keys, operator tokens, signing secrets, provider keys, bearer tokens. */
const SECRETS = /\b(svc_sk_(?:test|live)_|svc_op_|whsec_|(?:sk|rk|pk)_(?:test|live|sbox)_|(?:test|live)_(?=[A-Za-z0-9]{20,}))[A-Za-z0-9]+|\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/g;

export const PATH_WITHHELD = '(withheld: the path held a card number)';
export const MESSAGE_WITHHELD = '(withheld: the message held a card number)';

/** The error answer of a failed call as the log keeps it: the contract's code, message and param. */
export interface LoggedError {
  code: string;
  message: string;
  param: string | null;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** Secrets cut to their prefix, so a reader still sees which kind of secret was there. */
function withoutSecrets(text: string): string {
  return text.replace(SECRETS, (_all, prefix?: string, scheme?: string) => `${prefix ?? `${scheme} `}[redacted]`);
}

/** The path without its query, or a note in its place when it holds a card number. */
export function loggedPath(url: string): string {
  const path = url.split('?')[0]!;
  return containsCardNumber(decoded(path)) ? PATH_WITHHELD : withoutSecrets(path).slice(0, MAX_PATH);
}

/** The error answer kept for a failed call; `details` (free-form, per code) is never kept. */
export function loggedError(err: Pick<DomainError, 'code' | 'message' | 'options'>): LoggedError {
  const param = err.options.param;
  return {
    code: err.code,
    message: containsCardNumber(err.message) ? MESSAGE_WITHHELD : withoutSecrets(err.message).slice(0, MAX_MESSAGE),
    param: param === undefined ? null : containsCardNumber(param) ? '(withheld)' : withoutSecrets(param).slice(0, MAX_PATH),
  };
}
