import { describe, expect, it } from 'vitest';
import { EXIT, runAgentCli, type AgentCliSpec, type AgentCommand } from './cli.js';
import { ConfigError, InvalidInputError } from './errors.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

const spec = (run: AgentCommand['run']): AgentCliSpec => ({
  name: 'fabrik-agent-test',
  version: '1.2.3',
  description: 'test agent',
  commands: { plan: { summary: 'what would change', run } },
});

describe('runAgentCli', () => {
  it('prints the version', async () => {
    const t = io();
    expect(
      await runAgentCli(
        spec(async () => 0),
        ['--version'],
        t.io,
      ),
    ).toBe(EXIT.ok);
    expect(t.out.join('')).toBe('fabrik-agent-test 1.2.3\n');
  });

  it('passes --config to the command and returns its exit code', async () => {
    const t = io();
    let seen: unknown;
    const code = await runAgentCli(
      spec(async (ctx) => {
        seen = ctx.configPath;
        return EXIT.changes;
      }),
      ['plan', '--config', '/c.yaml'],
      t.io,
    );
    expect(code).toBe(1);
    expect(seen).toBe('/c.yaml');
  });

  it('refuses an unknown option instead of falling back to the default configuration', async () => {
    const t = io();
    let ran = false;
    const withDefault = {
      ...spec(async () => {
        ran = true;
        return EXIT.ok;
      }),
      defaultConfigPath: '/etc/fabrik/default.yaml',
    };
    expect(await runAgentCli(withDefault, ['plan', '--confg', '/c.yaml'], t.io)).toBe(EXIT.invalid);
    expect(ran).toBe(false);
    expect(t.err.join('')).toBe(
      'fabrik-agent-test plan: unknown option "--confg" (plan takes only --config FILE)\n',
    );
  });

  it.each([
    [
      'a config error',
      new ConfigError('/c.yaml', [{ path: 'asn', message: 'required' }]),
      2,
      'asn: required',
    ],
    [
      'invalid input',
      new InvalidInputError('invalid intent', [{ path: 'VRF red: spec.vni', message: 'too big' }]),
      2,
      'spec.vni',
    ],
    ['any other error', new Error('FRR is not running'), 1, 'FRR is not running'],
  ])('exits with the code of %s', async (_what, error, code, message) => {
    const t = io();
    const exit = await runAgentCli(
      spec(async () => {
        throw error;
      }),
      ['plan', '--config=/c.yaml'],
      t.io,
    );
    expect(exit).toBe(code);
    expect(t.err.join('')).toContain(message);
  });

  it.each([[['bogus', '--config', 'x']], [['plan']], [['plan', '--config']], [[]]])(
    'refuses bad usage %j with exit 2',
    async (argv) => {
      const t = io();
      expect(
        await runAgentCli(
          spec(async () => 0),
          argv,
          t.io,
        ),
      ).toBe(EXIT.invalid);
      expect(t.err.join('')).not.toBe('');
    },
  );
});
