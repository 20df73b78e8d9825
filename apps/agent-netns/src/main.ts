import { runAgentCli } from '@fabrik/agent-runtime';
import { agentNetnsCli } from './commands.js';

// Entry point of `fabrik-agent-netns` (bin/fabrik-agent-netns.mjs). Exits with the command's
// code once it is done (standard output to a pipe or file is written synchronously on Linux).
const code = await runAgentCli(agentNetnsCli, process.argv.slice(2));
process.exit(code);
