import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { EXIT, createLogger, isConfigError } from '@fabrik/agent-runtime';
import { OPERATOR_CONFIG_PATH, loadOperatorConfig } from './config.js';

// fabrik-operator's command line: `run` (the controller), `render --node NAME` (the
// NodeNetworkConfig that node would get now, printed as YAML), `--version`.

const NAME = 'fabrik-operator';
const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const USAGE = `usage: ${NAME} run|render [options]

  run                  render every node's NodeNetworkConfig and keep them current (one active
                       replica: a Lease)
  render --node NAME   print the NodeNetworkConfig NAME would get now

options:
  --config FILE        configuration (default ${OPERATOR_CONFIG_PATH})
  --kubeconfig FILE    default: in-cluster, or KUBECONFIG
  --version, --help
`;

async function main(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        config: { type: 'string', default: OPERATOR_CONFIG_PATH },
        kubeconfig: { type: 'string' },
        node: { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`${NAME}: ${(error as Error).message}\n\n${USAGE}`);
    return EXIT.invalid;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    process.stdout.write(`${NAME} ${VERSION}\n`);
    return EXIT.ok;
  }
  const [command] = positionals;
  if (values.help || command === undefined) {
    (command === undefined && !values.help ? process.stderr : process.stdout).write(USAGE);
    return values.help ? EXIT.ok : EXIT.invalid;
  }
  if (command !== 'run' && command !== 'render') {
    process.stderr.write(`${NAME}: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    return EXIT.invalid;
  }
  if (command === 'render' && values.node === undefined) {
    process.stderr.write(`${NAME}: render needs --node NAME\n`);
    return EXIT.invalid;
  }
  try {
    const config = await loadOperatorConfig(values.config);
    // @kubernetes/client-node takes seconds to load: only after the arguments are known good.
    const { loadKubeConfig } = await import('@fabrik/kube');
    const { kc } = loadKubeConfig(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig });
    if (command === 'render') {
      const { renderNodeNow } = await import('./render-now.js');
      const rendered = await renderNodeNow(kc, config, values.node!);
      if (rendered === undefined) {
        process.stderr.write(`${NAME}: no Node ${values.node}\n`);
        return EXIT.invalid;
      }
      process.stdout.write(stringify(rendered));
      return EXIT.ok;
    }
    const { runOperator } = await import('./run.js');
    return await runOperator(kc, config, createLogger({ name: NAME }));
  } catch (error) {
    process.stderr.write(`${NAME}: ${(error as Error).message}\n`);
    return isConfigError(error) ? EXIT.invalid : EXIT.failure;
  }
}

// No top-level await: the entry point may be bundled as CommonJS one day.
void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
