// The schema builders of the contract and its named schemas. Each builder writes the JSON Schema
// exactly as the OpenAPI document shows it and gives it, through TypeBox, the static type of the
// JSON it describes: `Static<typeof Payment>` is what a payment looks like on the wire, so the
// serialisers are checked against the schema at compile time and event consumers read it typed.
// Named schemas drive Fastify's validation and serialisation and appear in the OpenAPI document
// under components/schemas (found by identity when the document is built).
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

export type { Static };

/** Any schema, typed or not (a few request fields are plain JSON Schema). */
export type Schema = Record<string, unknown>;

const names = new Map<Schema, string>();

/**
 * A named schema; `examples` (JSON Schema's annotation) become the sample bodies /docs shows, so
 * each must pass the schema (test/openapi.test.ts validates them).
 */
export function component<T extends Schema>(name: string, schema: T, examples?: unknown[]): T {
  if (examples) (schema as Schema).examples = examples;
  names.set(schema, name);
  return schema;
}

export function componentName(schema: unknown): string | undefined {
  return names.get(schema as Schema);
}

export function allComponents(): Array<[string, Schema]> {
  return [...names].map(([schema, name]) => [name, schema]);
}

/** A schema written by hand whose JSON has the static type T. */
export const typed = <T>(schema: Schema): TUnsafe<T> => Type.Unsafe<T>(schema);

/** The static type of a property's schema; a plain (untyped) request schema gives `unknown`. */
type StaticOf<S> = S extends TSchema ? Static<S> : unknown;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** An object's JSON: the required properties, and the others optional. */
export type ObjectOf<P, K extends keyof P> = Simplify<
  { -readonly [X in K]: StaticOf<P[X]> } & { -readonly [X in Exclude<keyof P, K>]?: StaticOf<P[X]> }
>;

// Small builders keep the tables readable.
export const str = typed<string>({ type: 'string' });
export const int = typed<number>({ type: 'integer' });
export const bool = typed<boolean>({ type: 'boolean' });
export const dateTime = typed<string>({ type: 'string', format: 'date-time' });
export const anyObject = typed<Record<string, unknown>>({ type: 'object', additionalProperties: true });
/** Any JSON value (an error's `details`). */
export const anyValue = typed<unknown>({});

/** The same type that also admits null, written as a type list (`["string", "null"]`). */
export function nullable<S extends TSchema>(s: S): TUnsafe<Static<S> | null> {
  const type = s.type;
  return typed({ ...s, type: Array.isArray(type) ? [...type, 'null'] : [type, 'null'] });
}

/** The JSON types a schema admits, as its `type` says them (none for a schema without one). */
function typesOf(s: TSchema): string[] {
  const type: unknown = s.type;
  return Array.isArray(type) ? type : typeof type === 'string' ? [type] : [];
}

/**
 * A union as `anyOf`, with the types of its members said beside it as well: API reference
 * renderers (Scalar) refuse a schema without a `type`.
 */
function union(members: TSchema[]): TSchema {
  const types = [...new Set(members.flatMap(typesOf))];
  return typed({ ...(members.every((m) => typesOf(m).length > 0) && { type: types }), anyOf: members });
}

/** The schema or null, written as `anyOf` (for objects and enumerations). */
export function orNull<S extends TSchema>(s: S): TUnsafe<Static<S> | null> {
  return union([s, typed({ type: 'null' })]) as TUnsafe<Static<S> | null>;
}

export function object<P extends Record<string, Schema>, K extends keyof P & string = keyof P & string>(
  properties: P,
  required: readonly K[] = Object.keys(properties) as K[],
): TUnsafe<ObjectOf<P, K>> {
  return typed({ type: 'object', additionalProperties: false, required, properties });
}

export function arrayOf<S extends TSchema>(items: S): TUnsafe<Array<Static<S>>> {
  return typed({ type: 'array', items });
}

/** An object of any keys whose values all have the one schema. */
export function recordOf<S extends TSchema>(values: S, limits: Schema = {}): TUnsafe<Record<string, Static<S>>> {
  return typed({ type: 'object', additionalProperties: values, ...limits });
}

export function literal<const V extends string | boolean>(value: V): TUnsafe<V> {
  return typed({ type: typeof value === 'string' ? 'string' : 'boolean', const: value });
}

export function enumOf<const T extends readonly string[]>(values: T): TUnsafe<T[number]> {
  return typed({ type: 'string', enum: [...values] });
}

/** The contract's union of two shapes (`payment_method`: a type name or an object). */
export function anyOf<A extends TSchema, B extends TSchema>(a: A, b: B): TUnsafe<Static<A> | Static<B>> {
  return union([a, b]) as TUnsafe<Static<A> | Static<B>>;
}
