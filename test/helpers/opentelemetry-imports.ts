import { writeSync } from 'node:fs';

// A module resolution hook (node:module register) that writes each OpenTelemetry module a process
// imports to its stdout, for tests that check what a process loads (test/tracing.test.ts).

type Resolved = { url: string };

export async function resolve(specifier: string, context: unknown, next: (s: string, c: unknown) => Promise<Resolved>): Promise<Resolved> {
  const resolved = await next(specifier, context);
  const name = /node_modules\/(@opentelemetry\/[^/]+)\//.exec(resolved.url)?.[1];
  if (name) writeSync(1, `imported ${name}\n`);
  return resolved;
}
