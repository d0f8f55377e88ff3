#!/usr/bin/env node
// Runs the compiled CLI (npm ci / npm install builds dist/ through the prepare script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('firstcrack: dist/ is missing; run `npm ci` (or `npm run build`) first.');
  process.exit(1);
}
await import(entry.href);
