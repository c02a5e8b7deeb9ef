// The OpenAPI document as built, before any server serves it: valid OpenAPI 3.1 by the specification's
// schema, and in the form API reference renderers read without complaint (every schema states its
// type, as Scalar's reference requires; it logs "document validation errors" otherwise).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApi } from './openapi.js';

const doc = buildOpenApi('http://127.0.0.1:8080', 'Apache-2.0') as { components: { schemas: Record<string, unknown> } };

test('the built document is valid OpenAPI 3.1', async () => {
  const result = await new Validator().validate(structuredClone(doc));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
});

/** Schemas below `node` (itself included) that name neither a type nor a reference. */
function untyped(node: unknown, path: string, out: string[] = []): string[] {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return out;
  const schema = node as Record<string, unknown>;
  if (!('type' in schema) && !('$ref' in schema) && Object.keys(schema).length > 0) out.push(path);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && value && typeof value === 'object') {
      for (const [name, child] of Object.entries(value)) untyped(child, `${path}/properties/${name}`, out);
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not') {
      untyped(value, `${path}/${key}`, out);
    } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      value.forEach((child, i) => untyped(child, `${path}/${key}/${i}`, out));
    }
  }
  return out;
}

test('every schema of the document states its type (or is a reference)', () => {
  const missing = Object.entries(doc.components.schemas).flatMap(([name, s]) => untyped(s, `#/components/schemas/${name}`));
  assert.deepEqual(missing, []);
});
