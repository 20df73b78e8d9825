// Copies the handlebars templates next to the compiled modules: render.ts loads them relative
// to its own URL (src/templates under tsx, dist/templates once built).
import { cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const from = fileURLToPath(new URL('../src/templates/', import.meta.url));
const to = fileURLToPath(new URL('../dist/templates/', import.meta.url));
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
