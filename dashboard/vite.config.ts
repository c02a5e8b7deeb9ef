import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The dashboard is built into dist/dashboard and served by the gateway under /dashboard
// (gateway/dashboard/assets.ts) with a strict Content-Security-Policy: every script and
// stylesheet must be a file of this origin, so nothing is inlined into index.html or as data: URLs.
const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/dashboard/',
  plugins: [preact({ prerender: { enabled: false } })],
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    // outDir is outside root: vite empties it only when told, and only this folder of dist/.
    emptyOutDir: true,
    assetsInlineLimit: 0,
    // The preload polyfill would be an inline script in older setups; every browser we target has modulepreload.
    modulePreload: { polyfill: false },
    sourcemap: true,
    target: 'es2022',
  },
});
