import { runAgentCli } from '@fabrik/agent-runtime';
import { agentNetnsCli } from './commands.js';

// Entry point of `fabrik-agent-netns` (bin/fabrik-agent-netns.mjs runs its bundle, see
// scripts/bundle.ts). Exits with the command's code once it is done (standard output to a pipe or
// file is written synchronously on Linux). No top-level await: the bundle is CommonJS.
void runAgentCli(agentNetnsCli, process.argv.slice(2)).then((code) => process.exit(code));
