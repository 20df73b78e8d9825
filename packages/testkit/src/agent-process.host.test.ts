import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startAgentProcess } from './agent-process.js';

// startAgentProcess with a stand-in agent (a node script printing pino-like lines): what the agent
// tests rely on when they wait for a log line, stop or kill an agent.
const agentScript = (script: string) =>
  startAgentProcess({ command: [process.execPath, '-e', script], env: { FABRIK_TEST: 'set' } });

describe('startAgentProcess', () => {
  it('collects JSON lines (and other lines as text) and finds the awaited one, also one written later', async () => {
    const agent = agentScript(`
      console.log(JSON.stringify({ msg: 'started', env: process.env.FABRIK_TEST }));
      console.log('not json');
      setTimeout(() => console.log(JSON.stringify({ msg: 'reconciled', n: 1 })), 300);
      setTimeout(() => {}, 60000);`);
    const line = await agent.waitForLog((l) => l.msg === 'reconciled', { what: 'the reconcile' });
    expect(line).toEqual({ msg: 'reconciled', n: 1 });
    expect(agent.logs).toEqual([
      { msg: 'started', env: 'set' },
      { msg: 'not json', unparsed: true },
      { msg: 'reconciled', n: 1 },
    ]);
    // `from` skips what came before.
    await expect(
      agent.waitForLog((l) => l.msg === 'started', { from: 1, timeoutMs: 300, what: 'a second start' }),
    ).rejects.toThrow(/timed out after 300 ms waiting for a second start; last log lines: .*reconciled/);
    expect(agent.running()).toBe(true);
    expect(await agent.stop()).toBe(null); // node's default SIGTERM handling: killed by the signal
    expect((await agent.exited).signal).toBe('SIGTERM');
    expect(agent.running()).toBe(false);
  });

  it('a wait fails, naming what it waited for, when the agent exits first; its last lines still count', async () => {
    const agent = agentScript(`
      console.error('config: bad field');
      console.log(JSON.stringify({ msg: 'last words' }));
      process.exit(2);`);
    await expect(agent.waitForLog((l) => l.msg === 'ready', { what: 'readiness' })).rejects.toThrow(
      /agent exited before readiness; last log lines: .*last words.*stderr: config: bad field/,
    );
    expect(await agent.waitForLog((l) => l.msg === 'last words')).toEqual({ msg: 'last words' });
    expect((await agent.exited).code).toBe(2);
  });

  it('kill() takes the processes the agent started along (its process group)', async () => {
    const agent = agentScript(`
      const child = require('node:child_process').spawn('sleep', ['60'], { stdio: 'ignore' });
      console.log(JSON.stringify({ msg: 'child', pid: child.pid }));
      setTimeout(() => {}, 60000);`);
    const { pid } = (await agent.waitForLog((l) => l.msg === 'child')) as { pid: number };
    await agent.kill();
    expect((await agent.exited).signal).toBe('SIGKILL');
    await expect.poll(() => alive(pid)).toBe(false);
  });

  it('probe needs the health address', async () => {
    const agent = agentScript('setTimeout(() => {}, 60000)');
    await expect(agent.probe('/readyz')).rejects.toThrow(/no healthAddress given, cannot probe \/readyz/);
    await agent.kill();
  });
});

/** Whether `pid` still runs (a zombie, killed and not yet reaped by whoever inherited it, does not). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
