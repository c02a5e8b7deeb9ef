// Reading the project's Markdown as a reader's browser would: headings and links outside code.
import { projectFiles } from '../helpers/project-files.js';

/** Every Markdown file of the project, as paths relative to its root. */
export function markdownFiles(): string[] {
  return projectFiles().filter((f) => f.endsWith('.md'));
}

/** The lines outside fenced code blocks, each with its 1-based number. */
function prose(markdown: string): { line: string; number: number }[] {
  let fenced = false;
  const out: { line: string; number: number }[] = [];
  markdown.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) out.push({ line, number: i + 1 });
  });
  return out;
}

export function headings(markdown: string): { level: number; text: string }[] {
  return prose(markdown)
    .map(({ line }) => /^(#{1,6}) (.+?)\s*#*$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ level: m[1]!.length, text: m[2]!.trim() }));
}

/** Links to files of the project (not to the web), outside code. */
export function localLinks(markdown: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  for (const { line, number } of prose(markdown)) {
    const text = line.replace(/`[^`]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:/i.test(m[1]!)) out.push({ target: m[1]!, line: number });
    }
  }
  return out;
}
