// A minimal agent built on the runtime, run as a real process by daemon.host.test.ts: its
// "data plane" is a JSON file listing the objects of its intent. An object named `fail` makes
// the reconcile fail (retried), one named `bad` is refused (result invalid), `slow` takes 1 s.
import { z } from 'zod';
import {
  EXIT,
  createAgentMetrics,
  createFileSource,
  createLogger,
  createStatusFile,
  loadConfig,
  runAgentCli,
  runDaemon,
  writeFileAtomic,
} from '../src/index.js';

const Config = z
  .object({
    nodeName: z.string(),
    intentFile: z.string(),
    dataPlaneFile: z.string(),
    statusFile: z.string(),
    healthAddress: z.string(),
    metricsAddress: z.string(),
  })
  .strict();

const code = await runAgentCli(
  {
    name: 'fixture-agent',
    version: '0.0.1',
    description: 'test fixture',
    commands: {
      run: {
        summary: 'run',
        async run({ configPath }) {
          const config = await loadConfig(configPath, Config, { envDefaults: { nodeName: 'NODE_NAME' } });
          const logger = createLogger({ name: 'fixture-agent' });
          const metrics = createAgentMetrics({ prefix: 'fixture_agent' });
          const status = createStatusFile<{ names: string[]; lastUpdate: string }>({
            path: config.statusFile,
          });
          return runDaemon({
            logger,
            metrics,
            source: createFileSource({ path: config.intentFile, nodeName: config.nodeName }),
            healthAddress: config.healthAddress,
            metricsAddress: config.metricsAddress,
            backoff: { initialMs: 50, maxMs: 200 },
            async reconcile({ snapshot, signal }) {
              const names = snapshot.objects.map((o) => o.metadata.name);
              if (names.includes('slow')) await new Promise((r) => setTimeout(r, 1000));
              if (signal.aborted) return { result: 'success', message: 'stopping' };
              if (names.includes('fail')) return { result: 'error', message: 'object fail fails' };
              await writeFileAtomic(config.dataPlaneFile, JSON.stringify(names));
              await status.write({ names, lastUpdate: new Date().toISOString() });
              return names.includes('bad')
                ? { result: 'invalid', message: 'bad: spec.x: refused', counts: { objects: names.length } }
                : { result: 'success', counts: { objects: names.length } };
            },
          });
        },
      },
    },
  },
  process.argv.slice(2),
);
process.exit(code === EXIT.ok ? 0 : code);
