#!/usr/bin/env node
// The `fabrik-operator` executable: the compiled command line (`npm run build` writes dist/).
import '../dist/cli.js';
