// The parts of the docs written from code, so they cannot drift from it: the configuration table
// (services/platform/config-variables.ts), the error codes (services/contract/errors.ts and
// error-meanings.ts) and each page's table of contents. `npm run docs` writes them into the pages;
// test/docs.test.ts fails when a committed page differs from what this renders.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ERROR_MEANINGS } from '../../services/contract/error-meanings.js';
import { ERRORS, type ErrorCode } from '../../services/contract/errors.js';
import { VARIABLES, WHOLE_NUMBERS, type WholeNumberName } from '../../services/platform/config-variables.js';
import { projectPath } from '../../services/platform/paths.js';
import { headings, markdownFiles } from './markdown.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function wholeNumber(names: readonly string[]) {
  return names.length === 1 && Object.hasOwn(WHOLE_NUMBERS, names[0]!) ? WHOLE_NUMBERS[names[0] as WholeNumberName] : undefined;
}

export function configurationTable(): string {
  const rows = VARIABLES.map((v) => {
    const n = wholeNumber(v.names);
    const fallback = v.default ?? `\`${n!.default}\`${v.defaultNote ? ` ${v.defaultNote}` : ''}`;
    const values = n ? `${n.min} to ${n.max}` : '';
    return `| ${v.names.map((name) => `\`${name}\``).join(', ')} | ${cell(fallback)} | ${values} | ${cell(v.usedBy)} | ${cell(v.meaning)} |`;
  });
  return ['| Variable | Default | Values | Used by | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function errorCodeTable(): string {
  const rows = (Object.keys(ERRORS) as ErrorCode[]).map((code) => {
    const entry: { status: number; type: string; alternative?: number } = ERRORS[code];
    const status = entry.alternative ? `${entry.status} or ${entry.alternative}` : String(entry.status);
    return `| \`${code}\` | ${status} | \`${entry.type}\` | ${cell(ERROR_MEANINGS[code] ?? '')} |`;
  });
  return ['| `error.code` | HTTP status | `error.type` | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(markdown: string): Map<string, string> {
  const seen = new Map<string, number>();
  const out = new Map<string, string>();
  for (const { text } of headings(markdown)) {
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.set(n === 0 ? base : `${base}-${n}`, text);
  }
  return out;
}

/** The page's `##` and `###` headings as a nested list of links. */
export function tableOfContents(markdown: string): string {
  const byText = [...anchors(markdown)].map(([anchor]) => anchor);
  return headings(markdown)
    .map((h, i) => ({ ...h, anchor: byText[i]! }))
    .filter((h) => h.level === 2 || h.level === 3)
    .map((h) => `${h.level === 3 ? '  ' : ''}- [${h.text.replace(/`/g, '')}](#${h.anchor})`)
    .join('\n');
}

const BLOCK = /(<!-- generated: ([\w-]+)[^>]*-->)[\s\S]*?(<!-- \/generated -->)/g;

/** A page with every generated block rendered anew. */
export function render(markdown: string): string {
  const generators: Record<string, (page: string) => string> = {
    'configuration-table': configurationTable,
    'error-codes': errorCodeTable,
    toc: tableOfContents,
  };
  return markdown.replace(BLOCK, (_, open: string, name: string, close: string) => {
    const generate = generators[name];
    if (!generate) throw new Error(`unknown generated block "${name}"`);
    return `${open}\n${generate(markdown)}\n${close}`;
  });
}

/** Every page with a generated block, and what it should hold. */
export function renderedPages(): { file: string; committed: string; rendered: string }[] {
  return markdownFiles()
    .map((file) => ({ file, committed: readFileSync(projectPath(file), 'utf8') }))
    .filter(({ committed }) => committed.includes('<!-- generated: '))
    .map((page) => ({ ...page, rendered: render(page.committed) }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const { file, committed, rendered } of renderedPages()) {
    if (rendered === committed) continue;
    writeFileSync(projectPath(file), rendered);
    console.log(`wrote ${file}`);
  }
}
