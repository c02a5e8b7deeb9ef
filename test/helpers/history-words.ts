// What a reader cannot act on: the numbers and names of the work items a behaviour came from, the
// reviews that found it, the sittings it was written in. Comments, test names, messages and pages
// say what the product does instead. One list, read by the scans of pages (docs.test.ts) and of
// source (history-words.test.ts).

const HISTORY: RegExp[] = [
  /\bissues? #?\d+/i,
  /\bred[ -]team\b/i,
  /\bfindings? \d+/i,
  /\b(?:round (?:two|three)|second round)\b/i,
  /\b(?:first|second|third|previous|earlier) session\b/i,
];

/** Each line of `text` that speaks of how the project was made, as `file:line: text`. */
export function historyLines(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) =>
    HISTORY.some((pattern) => pattern.test(line)) ? [`${file}:${i + 1}: ${line.trim().slice(0, 100)}`] : []);
}
