// The one way the build reads a tsconfig and prints TypeScript's errors, as tsc prints them.
import ts from 'typescript';

export { ts };

/** The parsed tsconfig at path; a file it cannot read at all throws, naming why. */
export function readConfig(path) {
  const config = ts.getParsedCommandLineOfConfigFile(path, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!config) throw new Error(`cannot read ${path}`);
  return config;
}

/** Writes the diagnostics to stdout, with colour and source context on a terminal, as tsc does. */
export function reportDiagnostics(diagnostics) {
  const host = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => process.cwd(),
    getNewLine: () => ts.sys.newLine,
  };
  const text = process.stdout.isTTY
    ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host)
    : ts.formatDiagnostics(diagnostics, host);
  process.stdout.write(`${text}\nFound ${diagnostics.length} error${diagnostics.length === 1 ? '' : 's'}.\n`);
}
