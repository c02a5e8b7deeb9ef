#!/usr/bin/env node
// `svc`, the management CLI. The code lives in TypeScript and runs from its compiled copy.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('svc: the CLI is not built; run `npm run build` (or `npm start`, which builds) first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv.slice(2));
