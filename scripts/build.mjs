// Builds what changed since the last build, and nothing else: `npm start` runs it before every
// start (a start of an unchanged tree compiles nothing and skips vite), `npm run build` after
// scripts/clean.mjs has emptied dist/. Needs nothing but Node and the installed dev dependencies.
import { fileURLToPath } from 'node:url';
import { buildDashboard } from './build/dashboard.mjs';
import { buildServer } from './build/server.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const since = (start) => `${((performance.now() - start) / 1000).toFixed(1)} s`;
const because = (reason) => (reason ? `, ${reason}` : '');

let start = performance.now();
const server = buildServer(root);
if (!server.ok) process.exit(1);
console.log(server.compiled
  ? `build: server compiled (${since(start)}${because(server.reason)})`
  : `build: server up to date (${since(start)})`);

start = performance.now();
const dashboard = await buildDashboard(root);
if (!dashboard.ok) process.exit(1);
console.log(dashboard.skipped
  ? `build: dashboard unchanged, skipped (${since(start)})`
  : `build: dashboard built (${since(start)}, ${dashboard.reason})`);
