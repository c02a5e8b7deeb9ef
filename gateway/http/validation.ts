import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

// verbose: an error carries the value refused, which the message of an enumeration compares with its values.
function ajv(options: Options): Ajv {
  return addFormats(new Ajv({ strict: true, allowUnionTypes: true, allErrors: false, useDefaults: true, verbose: true, ...options }));
}

// A body keeps its JSON types ("100" is not an amount); query strings are text and are coerced.
const bodyAjv = ajv({ coerceTypes: false });
const queryAjv = ajv({ coerceTypes: true });

/**
 * The one schema validator of the gateway, set on the root so /v1, /manage/v1 and the sandbox page
 * all inherit it: no scope falls back to Fastify's default, which strips unknown properties instead
 * of refusing them.
 */
export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object),
  );
}
