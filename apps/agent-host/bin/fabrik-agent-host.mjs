#!/usr/bin/env node
// The `fabrik-agent-host` executable. It exists before the build so that `npm ci` can link it
// into node_modules/.bin; the program is the single file `npm run build` bundles into dist/
// (scripts/bundle.ts), required as CommonJS: no ESM parse of a large file.
import { createRequire } from 'node:module';

createRequire(import.meta.url)('../dist/fabrik-agent-host.cjs');
