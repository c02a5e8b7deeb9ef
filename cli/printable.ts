import { visible } from '../services/contract/control-characters.js';

// Everything `svc` prints from what the API or a stream answered passes here: a
// stored name holding ESC, BEL, a C1 control or a bidi override would otherwise act on the
// operator's terminal (set its title, clear the screen, reorder a line). Each line is escaped on
// its own, so a stored line break shows as \u000a instead of faking a line of output.

/** Lines for a person, each control character shown escaped; ends with a line break. */
export function printable(lines: string[]): string {
  return `${lines.map(visible).join('\n')}\n`;
}

/**
 * JSON for a program: pretty-printed, and valid JSON that parses back to the same values. Its only
 * raw line breaks are the layout's (JSON.stringify escapes C0 in strings); the characters it leaves
 * raw (DEL, C1, bidi) are written as \u escapes.
 */
export function printableJson(value: unknown): string {
  return printable(JSON.stringify(value, null, 2).split('\n'));
}
