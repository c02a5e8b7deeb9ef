import { invalidField } from '../../contract/index.js';
import type { ProviderChecks } from '../../connectors/provider-definition.js';
import { baseUrlProblem } from '../../connectors/provider-base-url.js';

// A connect is checked against the provider's definition (its credentialFields and modeMismatch,
// connectors/<code>/index.ts) before anything is stored, so an account never exists with
// credentials its connector cannot use.

const MAX_VALUE = 4096;

/**
 * The values to store, trimmed and empty ones dropped; a 422 naming every missing field at once,
 * or the first unknown or malformed one. Values are never quoted in a message. A field the
 * provider builds a host from has its documented shape (the definition's hostFields); an
 * api_base_url passes the provider address policy (provider-base-url.ts) unless its origin is in `allowlist`.
 */
export function checkedValues(
  providers: ReadonlyMap<string, ProviderChecks>, providerCode: string, mode: string, raw: Record<string, string>,
  allowlist: readonly string[],
): Record<string, string> {
  const spec = providers.get(providerCode);
  if (!spec) {
    throw invalidField('provider', `Unknown provider "${providerCode}"; the providers that can be connected are ` +
      [...providers.keys()].sort().join(', '));
  }
  const { required, optional } = fieldNames(spec);
  const values = Object.fromEntries(
    Object.entries(raw).map(([k, v]) => [k, v.trim()] as const).filter(([, v]) => v !== ''),
  );
  const missing = required.filter((f) => values[f] === undefined);
  if (missing.length > 0) {
    throw invalidField(missing[0], `${providerCode} needs ${missing.join(', ')}: ${missing.length === 1 ? 'it is' : 'they are'} missing`);
  }
  const known = [...required, ...optional];
  const unknown = Object.keys(values).find((k) => !known.includes(k));
  if (unknown !== undefined) {
    throw invalidField(unknown, `${providerCode} takes ${known.join(', ')}; "${unknown}" is not one of them`);
  }
  const tooLong = Object.keys(values).find((k) => values[k].length > MAX_VALUE);
  if (tooLong !== undefined) throw invalidField(tooLong, `${tooLong} must be at most ${MAX_VALUE} characters`);
  const badShape = Object.entries(spec.hostFields ?? {}).find(([name, shape]) => values[name] !== undefined && !shape.pattern.test(values[name]));
  if (badShape !== undefined) throw invalidField(badShape[0], badShape[1].says);
  const urlProblem = values.api_base_url === undefined ? undefined : baseUrlProblem(values.api_base_url, allowlist);
  if (urlProblem !== undefined) throw invalidField('api_base_url', urlProblem);
  const mismatch = spec.modeMismatch?.(values, mode);
  if (mismatch) throw invalidField(mismatch[0], mismatch[1]);
  return values;
}

/** A provider's credential field names, required and optional, in its definition's order. */
export function fieldNames(spec: ProviderChecks): { required: string[]; optional: string[] } {
  return {
    required: spec.credentialFields.filter((f) => f.required).map((f) => f.name),
    optional: spec.credentialFields.filter((f) => !f.required).map((f) => f.name),
  };
}
