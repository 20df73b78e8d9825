#!/usr/bin/env node
// The `fabrik-agent-netns` executable. It exists before the build so that `npm ci` can link it
// into node_modules/.bin; the agent itself is compiled to dist/ by `npm run build`.
import '../dist/main.js';
