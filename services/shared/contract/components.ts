// Named schemas: the same objects drive Fastify's validation and serialisation, and appear in
// the OpenAPI document under components/schemas (found by identity when the document is built).

export type Schema = Record<string, unknown>;

const names = new Map<Schema, string>();

export function component<T extends Schema>(name: string, schema: T): T {
  names.set(schema, name);
  return schema;
}

export function componentName(schema: unknown): string | undefined {
  return names.get(schema as Schema);
}

export function allComponents(): Array<[string, Schema]> {
  return [...names].map(([schema, name]) => [name, schema]);
}

// Small builders keep the tables below readable.
export const str = { type: 'string' } as const;
export const int = { type: 'integer' } as const;
export const bool = { type: 'boolean' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const nullable = (s: Schema): Schema => {
  const type = s.type;
  return { ...s, type: Array.isArray(type) ? [...type, 'null'] : [type, 'null'] };
};
export const anyObject = { type: 'object', additionalProperties: true } as const;

export function object(properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema {
  return { type: 'object', additionalProperties: false, required, properties };
}

export const enumOf = (values: readonly string[]): Schema => ({ type: 'string', enum: [...values] });
