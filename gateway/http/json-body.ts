import type { FastifyInstance } from 'fastify';
import { DomainError, MAX_BODY_BYTES, MAX_JSON_DEPTH } from '../../services/contract/index.js';
import { refuseBadText } from './text-rules.js';

// The one way a request body becomes a value: JSON in UTF-8, nothing else. Fastify's own parser
// strips a byte order mark, accepts any charset parameter and lets invalid UTF-8 turn into U+FFFD;
// this one refuses each of them, refuses nesting deeper than MAX_JSON_DEPTH before JSON.parse or
// anything recursive sees it, and refuses NUL and lone surrogates naming the field.

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** `application/json` with no charset or charset=utf-8 (JSON is UTF-8: RFC 8259 section 8.1). */
function refuseCharset(contentType: string | undefined): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw new DomainError('unsupported_media_type', `Send JSON encoded as UTF-8, not ${charset.slice(0, 40)}.`);
  }
}

/**
 * The deepest nesting of arrays and objects, counted on the bytes (every structural character is
 * ASCII and never part of a multi-byte UTF-8 sequence) and stopping as soon as `max` is passed.
 * The top-level object is depth 1.
 */
export function nestingDepthExceeds(raw: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * The path of the first name an object of valid JSON `text` holds twice, names compared as
 * JSON.parse reads them ("amount" and "\u0061mount" are one); undefined when none repeats.
 * JSON.parse keeps the last of them while other parsers (a merchant's WAF or log pipeline) keep the
 * first, so `{"amount":100,"amount":100000}` would mean one payment to them and another here.
 */
export function repeatedName(text: string): string[] | undefined {
  // One frame per open object (its names so far, the member being read) or array (names null).
  const frames: { names: Set<string> | null; path: string[]; member: string }[] = [];
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = frames[frames.length - 1];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (top?.names && nameNext) {
        // Every request body passes here: only a name with an escape needs JSON.parse to be read.
        const raw = text.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.names.has(name)) return [...top.path, name];
        top.names.add(name);
        top.member = name;
        nameNext = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      const path = !top ? [] : top.names ? [...top.path, top.member] : top.path;
      frames.push({ names: c === '{' ? new Set() : null, path, member: '' });
      nameNext = c === '{';
    } else if (c === '}' || c === ']') {
      frames.pop();
    } else if (c === ',') {
      nameNext = Boolean(top?.names);
    }
  }
  return undefined;
}

/** The path of the first string (key or value) that invalid UTF-8 turned into U+FFFD. */
function pathOfReplacement(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return value.includes('\uFFFD') ? path : undefined;
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key.includes('\uFFFD')) return path;
      const found = pathOfReplacement(inner, [...path, Array.isArray(value) ? String(Number(key)) : key]);
      if (found) return found;
    }
  }
  return undefined;
}

function invalidUtf8(raw: Uint8Array): DomainError {
  let param: string | undefined;
  try {
    param = pathOfReplacement(JSON.parse(lenientUtf8.decode(raw)))?.join('.');
  } catch {
    // Not JSON either way: say what is wrong with the bytes.
  }
  return new DomainError('validation_error', `${param || 'The request body'} is not valid UTF-8 text.`, {
    param: param || undefined,
  });
}

export function parseJsonBody(contentType: string | undefined, raw: Buffer): unknown {
  refuseCharset(contentType);
  if (raw.length === 0) throw new DomainError('invalid_json', 'The request body is empty; send a JSON object.');
  if (raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) {
    throw new DomainError('invalid_json', 'The request body starts with a byte order mark; send JSON without one.');
  }
  if (nestingDepthExceeds(raw, MAX_JSON_DEPTH)) {
    throw new DomainError('json_too_deep', `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  let text: string;
  try {
    text = strictUtf8.decode(raw);
  } catch {
    throw invalidUtf8(raw);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('invalid_json', 'The request body is not valid JSON.');
  }
  const repeated = repeatedName(text);
  if (repeated) {
    const param = repeated.join('.');
    throw new DomainError('invalid_json', `The request body names ${param} twice; send each field once.`, { param });
  }
  refuseBadText(value);
  return value;
}

/** Replaces Fastify's JSON and text parsers; other media types are refused with 415. */
export function installJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (request, body, done) => {
    try {
      done(null, parseJsonBody(request.headers['content-type'], body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
