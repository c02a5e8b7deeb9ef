// What a command may touch of the world: its own streams, environment and folder, and a fetch a
// test can replace. Its own file so every command imports it without importing main.ts.
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  fetch?: typeof fetch;
}
