// Characters a terminal acts on instead of showing: C0 controls (ESC starts
// the sequences that set a window title or clear the screen, BEL ends some), DEL, C1 controls
// (U+009B is a one-character CSI to many terminals) and the bidi embeddings, overrides and isolates
// that make text read in another order than it is stored. One home: the names a stranger gives
// (sign-up, merchant, key, provider account) refuse them, and `svc` shows them escaped in every
// stored text it prints. By path only, like project-caps.ts (the CLI, the gateway, routing-risk).

const RANGES = '\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';
const ONE = new RegExp(`[${RANGES}]`);
const ANY = new RegExp(`[${RANGES}]`, 'g');

/** The JSON Schema pattern of a text without any: a name's schema carries it (displayName below). */
export const NO_CONTROL_CHARACTERS = `^[^${RANGES}]*$`;

/** Why such a text is refused, after its field's name (`name must not contain …`). */
export const CONTROL_CHARACTERS_PROBLEM = 'must not contain control characters (such as ESC, BEL, a line break or a bidi override)';

/** Whether `text` holds one. */
export function hasControlCharacter(text: string): boolean {
  return ONE.test(text);
}

/** A name's schema: 1 to `maxLength` characters, none a control character. */
export function displayName(maxLength: number) {
  return { type: 'string', minLength: 1, maxLength, pattern: NO_CONTROL_CHARACTERS } as const;
}

/**
 * `text` with each of them written as its JSON escape (`\u001b`): visible on a terminal, and still
 * valid inside a JSON string, so --json output parses back to the stored text.
 */
export function visible(text: string): string {
  return text.replace(ANY, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
