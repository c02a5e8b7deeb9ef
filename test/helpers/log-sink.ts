import { Writable } from 'node:stream';

/** A logger destination that keeps every line written to it, for tests that read what was logged. */
export function captureLogs(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, lines };
}
