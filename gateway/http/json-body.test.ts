import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainError } from '../../services/shared/errors.js';
import { MAX_JSON_DEPTH } from '../../services/shared/limits.js';
import { nestingDepthExceeds, parseJsonBody } from './json-body.js';

const refusal = (contentType: string | undefined, raw: Buffer | string) => {
  try {
    parseJsonBody(contentType, Buffer.from(raw));
  } catch (err) {
    assert.ok(err instanceof DomainError, String(err));
    return { code: err.code, param: err.options.param };
  }
  return undefined;
};

test('nesting is counted on the bytes, ignoring brackets inside strings and escaped quotes', () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  assert.equal(nestingDepthExceeds(Buffer.from(deep(MAX_JSON_DEPTH)), MAX_JSON_DEPTH), false);
  assert.equal(nestingDepthExceeds(Buffer.from(deep(MAX_JSON_DEPTH + 1)), MAX_JSON_DEPTH), true);
  assert.equal(nestingDepthExceeds(Buffer.from(`{"a":"${'['.repeat(50)}\\"${'{'.repeat(50)}"}`), MAX_JSON_DEPTH), false);
  assert.equal(nestingDepthExceeds(Buffer.from('['.repeat(100_000)), MAX_JSON_DEPTH), true);
});

test('UTF-8 JSON only: charset, byte order mark, invalid bytes, NUL and lone surrogates are refused', () => {
  assert.deepEqual(parseJsonBody('application/json; charset=UTF-8', Buffer.from('{"a":"é"}')), { a: 'é' });
  assert.deepEqual(refusal('application/json; charset=utf-16', '{}'), { code: 'unsupported_media_type', param: undefined });
  assert.deepEqual(refusal('application/json', '\ufeff{}'), { code: 'invalid_json', param: undefined });
  assert.deepEqual(refusal('application/json', ''), { code: 'invalid_json', param: undefined });
  assert.deepEqual(refusal('application/json', Buffer.concat([Buffer.from('{"a":{"b":"'), Buffer.from([0xff]), Buffer.from('"}}')])),
    { code: 'validation_error', param: 'a.b' });
  assert.deepEqual(refusal('application/json', '{"list":["ok","\\u0000"]}'), { code: 'validation_error', param: 'list.1' });
  assert.deepEqual(refusal('application/json', '{"a":"\\udfff"}'), { code: 'validation_error', param: 'a' });
  assert.deepEqual(refusal('application/json', '{"__proto__":{}}'), { code: 'invalid_json', param: undefined });
  assert.deepEqual(refusal('application/json', `{"a":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`),
    { code: 'json_too_deep', param: undefined });
});
