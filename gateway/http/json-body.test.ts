import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainError } from '../../services/contract/errors.js';
import { MAX_JSON_DEPTH } from '../../services/contract/limits.js';
import { nestingDepthExceeds, parseJsonBody, repeatedName } from './json-body.js';

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

test('a name twice in one object is refused with its path, however it is escaped; the same name in other objects is not', () => {
  assert.deepEqual(repeatedName('{"amount":100,"currency":"EUR","amount":100000}'), ['amount']);
  assert.deepEqual(repeatedName('{"amount":100,"\\u0061mount":100000}'), ['amount'], 'an escape names the same member');
  assert.deepEqual(repeatedName('{"metadata":{"k":"a","x":{"y":1},"k":"b"}}'), ['metadata', 'k']);
  assert.deepEqual(repeatedName('{"events":[{"a":1},{"b":2,"b":3}]}'), ['events', 'b']);
  assert.equal(repeatedName('{"amount":1,"metadata":{"amount":"1"},"list":[{"amount":1},{"amount":2}]}'), undefined);
  assert.equal(repeatedName('{"a":"\\"a\\":1,\\"a\\"","b":["a","a"],"c":"{\\"c\\":1}"}'), undefined, 'names inside strings and array items are values');
  assert.deepEqual(refusal('application/json', '{"amount":1000,"currency":"EUR","amount":2000}'), { code: 'invalid_json', param: 'amount' });
  assert.deepEqual(refusal('application/json', '{"metadata":{"order":"1","order":"2"}}'), { code: 'invalid_json', param: 'metadata.order' });
});
