import { MODES as CONTRACT_MODES } from '../services/contract/enums.js';
import { MAX_PAGE_LIMIT } from '../services/contract/limits.js';
import type { ManagementClient } from './client.js';

// What every `svc` command is, and the small helpers their checks and calls share.

export type Values = Record<string, string | undefined>;

export interface Command {
  /** The words that select it: a group and an action (['key', 'create']) or one word (['status']). */
  words: [string] | [string, string];
  summary: string;
  /** Arguments after the words, as shown in usage. */
  synopsis: string;
  /** Its own string options; --json, --api-url and --help are common to all commands. */
  options: string[];
  /** Names of the positional arguments it requires, in order. */
  positionals: string[];
  /** Takes any number of further positionals (allow-list entries); otherwise an extra one is a usage mistake. */
  variadic?: boolean;
  /** A usage mistake in the parsed values, or undefined when they are fine. */
  check(values: Values, positionals: string[]): string | undefined;
  call(api: ManagementClient, values: Values, positionals: string[]): Promise<any>;
  /** The result for a person; --json prints the body instead. */
  human(body: any): string[];
}

export const MODES: readonly string[] = CONTRACT_MODES;

export const SHOWN_ONCE = 'This secret is shown once: store it now, it cannot be shown again.';

export function required(values: Values, ...names: string[]): string | undefined {
  const missing = names.find((n) => values[n] === undefined || values[n]!.trim() === '');
  return missing ? `--${missing} is required` : undefined;
}

export const id = (value: string) => encodeURIComponent(value);

// ManagementClient.request is typed for the methods earlier commands needed; fetch takes any.
export const del = (api: ManagementClient, path: string): Promise<any> =>
  (api.request as (method: string, path: string) => Promise<any>)('DELETE', path);

export const csv = (value: string | undefined): string[] | undefined =>
  value === undefined ? undefined : value.split(',').map((v) => v.trim()).filter(Boolean);

export const wholeOf = (value: string | undefined): number | undefined =>
  value !== undefined && /^\s*\d+\s*$/.test(value) ? Number(value) : undefined;

export function modeProblem(values: Values): string | undefined {
  return required(values, 'project', 'mode') ??
    (MODES.includes(values.mode!) ? undefined : `--mode must be test or live, got "${values.mode}"`);
}

/** `--limit` of a list: absent (the API's default page), or a whole number the API accepts. */
export function limitProblem(values: Values): string | undefined {
  if (values.limit === undefined) return undefined;
  const n = wholeOf(values.limit);
  return n !== undefined && n >= 1 && n <= MAX_PAGE_LIMIT
    ? undefined
    : `--limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}, got "${values.limit}"`;
}

/** A list page for a person: one line per item (or `empty`), then how to ask for the next page. */
export function pageLines(body: any, line: (item: any) => string, empty: string): string[] {
  return [
    ...(body.data.length === 0 ? [empty] : body.data.map(line)),
    ...(body.next_cursor ? [`more: --cursor ${body.next_cursor}`] : []),
  ];
}
