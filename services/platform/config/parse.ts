import { isIP } from 'node:net';
import { WHOLE_NUMBERS, type WholeNumberName } from '../config-variables.js';
import { parseOriginEntry } from '../net/origin-allowlist.js';

// How one environment variable is read: each kind of value (whole number, URL, list, key, flag)
// parsed once, a bad one stopping start-up with a message that names the variable. The bounds
// and defaults of whole numbers are config-variables.ts's.

export class ConfigError extends Error {
  constructor(readonly variable: string, reason: string) {
    super(`configuration: ${variable} ${reason}`);
  }
}

/** Required variables that are unset, all named at once so one edit of the environment fixes them. */
export class MissingVariablesError extends ConfigError {
  constructor(readonly variables: string[], reason: string) {
    super(variables[0], reason);
    this.message = `configuration: ${variables.join(', ')} ${variables.length === 1 ? 'is' : 'are'} required ${reason}`;
  }
}

export type Env = Record<string, string | undefined>;

export function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** Variables renamed, by their old name: the old one is still read while the new one is unset. */
export const RENAMED: Record<string, string> = {
  // It drives every provider's settlement sync, not Stripe's alone.
  STRIPE_SETTLEMENT_SYNC_INTERVAL_MS: 'SETTLEMENT_SYNC_INTERVAL_MS',
};

/** The name a renamed variable is read by: its new one, or its old one when only that is set. */
function nameIn(env: Env, name: string): string {
  const old = Object.keys(RENAMED).find((o) => RENAMED[o] === name);
  return env[name] === undefined && old !== undefined && env[old] !== undefined ? old : name;
}

const warned = new Set<string>();

/** Logs, once per process and old name, that a configuration used a renamed variable's old name. */
export function warnRenamedVariables(config: { renamedVariables?: string[] }, logger: { warn(msg: string): void }): void {
  for (const old of config.renamedVariables ?? []) {
    if (warned.has(old)) continue;
    warned.add(old);
    logger.warn(`${old} is the old name of ${RENAMED[old]}: it is read while ${RENAMED[old]} is unset; rename it`);
  }
}

/** A whole number within its bounds (config-variables.ts); unset, its default or the `fallback` given. */
export function int(env: Env, name: WholeNumberName, fallback: number = WHOLE_NUMBERS[name].default): number {
  const { min, max } = WHOLE_NUMBERS[name];
  const read = nameIn(env, name);
  const raw = str(env, read);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(read, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(read, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** NATS_URL: one URL or a comma-separated seed list, each entry checked as url() checks one. */
export function urlList(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  const entries = raw.split(',').map((e) => e.trim());
  if (entries.some((e) => e === '')) throw new ConfigError(name, 'has an empty entry in its comma-separated list');
  entries.forEach((entry, i) => {
    try {
      url({ [name]: entry }, name, protocols);
    } catch (err) {
      if (entries.length === 1 || !(err instanceof ConfigError)) throw err;
      throw new ConfigError(name, `entry ${i + 1} of ${entries.length} ${err.message.slice(`configuration: ${name} `.length)}`);
    }
  });
  return entries.join(',');
}

export function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
  }
  return raw;
}

/** An exact IPv4/IPv6 address or a CIDR range. */
function isAddressOrRange(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

export function addressList(env: Env, name: string): string[] {
  const raw = str(env, name);
  if (raw === undefined) return [];
  const entries = raw.split(',').map((e) => e.trim()).filter(Boolean);
  const bad = entries.find((e) => !isAddressOrRange(e));
  if (bad !== undefined) throw new ConfigError(name, `has "${bad}", which is not an IP address or CIDR range`);
  return entries;
}

/** Comma-separated origins (net/origin-allowlist.ts), normalised; empty when unset. */
export function originList(env: Env, name: string): string[] {
  const entries = (str(env, name) ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  return entries.map((entry) => {
    const parsed = parseOriginEntry(entry);
    if ('problem' in parsed) throw new ConfigError(name, `has "${entry}", which ${parsed.problem}`);
    return parsed.origin;
  });
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

/** 32 bytes, as 64 hex characters or base64. */
export function key32(env: Env, name: string): Buffer | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (bytes.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(raw) && bytes.toString('base64') !== raw)) {
    throw new ConfigError(name, 'must be 32 bytes written as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)');
  }
  return bytes;
}

export function subjectToken(env: Env, name: string, fallback: string, pattern: RegExp): string {
  const raw = str(env, name) ?? fallback;
  if (!pattern.test(raw)) throw new ConfigError(name, `has characters NATS does not allow here: "${raw}"`);
  return raw;
}

